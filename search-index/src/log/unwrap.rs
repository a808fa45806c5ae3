//! Joining the pieces of a wrapped paste: physical lines in, whole lines out.
//!
//! Takes the [`PasteShape`] told from a log's start and its physical lines one at a time;
//! yields each whole line with the number of its first piece. A terminal's hard wrap: a line
//! of exactly the width goes on in the next one, joined as it is. An editor's word wrap: a line
//! is held until the next shows whether it goes on there ([`continues`]), and joined to it at a
//! space. A paste not wrapped passes through untouched.

use std::borrow::Cow;

use super::paste::{continues, is_table_row, PasteShape};

/// Joins the pieces of a wrapped paste.
#[derive(Debug, Default, Clone)]
pub struct Unwrap {
    shape: PasteShape,
    /// The pieces of a line read so far, with the number of the first.
    held: Option<(String, usize)>,
    /// The last physical line of a word-wrapped paste, whose width tells whether it went on.
    last_piece: String,
}

impl Unwrap {
    pub fn new(shape: PasteShape) -> Unwrap {
        Unwrap {
            shape,
            ..Unwrap::default()
        }
    }

    /// Whether lines pass through as they come: the paste is not wrapped.
    pub fn is_plain(&self) -> bool {
        self.shape.wrap_width.is_none() && self.shape.word_wrap.is_none()
    }

    /// Takes physical line `number`; yields the line it completes, if any, with the number of
    /// its first piece.
    pub fn push<'a>(&mut self, physical: &'a str, number: usize) -> Option<(Cow<'a, str>, usize)> {
        if let Some(width) = self.shape.word_wrap {
            return self.word_wrapped(physical, number, width);
        }
        let Some(width) = self.shape.wrap_width else {
            return Some((Cow::Borrowed(physical), number));
        };
        let piece = physical.strip_suffix('\r').unwrap_or(physical);
        let cut = piece.chars().count() == width && !is_table_row(piece);
        match (self.held.take(), cut) {
            (None, false) => Some((Cow::Borrowed(physical), number)),
            (None, true) => {
                self.held = Some((piece.to_owned(), number));
                None
            }
            (Some((mut joined, first)), cut) => {
                joined.push_str(piece);
                if cut {
                    self.held = Some((joined, first));
                    None
                } else {
                    Some((Cow::Owned(joined), first))
                }
            }
        }
    }

    /// A line of a paste word-wrapped at `width`: joined to the one held if it goes on there,
    /// else held in its place, which is yielded.
    fn word_wrapped<'a>(
        &mut self,
        physical: &str,
        number: usize,
        width: usize,
    ) -> Option<(Cow<'a, str>, usize)> {
        let piece = physical.strip_suffix('\r').unwrap_or(physical);
        let done = match self.held.take() {
            Some((mut joined, first)) if continues(&self.last_piece, piece, width) => {
                if !joined.ends_with(' ') {
                    joined.push(' ');
                }
                joined.push_str(piece);
                self.held = Some((joined, first));
                None
            }
            held => {
                self.held = Some((piece.to_owned(), number));
                held.map(|(joined, first)| (Cow::Owned(joined), first))
            }
        };
        self.last_piece.clear();
        self.last_piece.push_str(piece);
        done
    }

    /// The line held when the log ends, if any.
    pub fn finish(&mut self) -> Option<(String, usize)> {
        self.held.take()
    }
}
