//! A column of numbers that turns NaN or Inf: a progress line printed like the one before it,
//! where a value that was a number is now `nan` or `inf`.
//!
//! Takes two lines; answers whether the second is the first's template with a finite number
//! turned non-finite. Training loops that print their objective without the word `loss`
//! (`Step 03455: nan E_h, variance=nan E_h^2, pmove=0.51` after `Step 03454: -14.9189 E_h,
//! ...`) tell a diverged run this way; a line that names its loss is read by
//! [`super::classify`] already.

/// The least number of numeric fields a line must have to be a column of numbers.
const MIN_FIELDS: usize = 2;

/// One piece of a line: a word, or a number or a non-finite value in a numeric field.
#[derive(PartialEq)]
enum Piece<'a> {
    Word(&'a str),
    Finite,
    NonFinite,
}

fn pieces(line: &str) -> Vec<Piece<'_>> {
    line.split(|c: char| c.is_whitespace() || "=,:;|[](){}'\"/".contains(c))
        .filter(|p| !p.is_empty())
        .map(|p| {
            let lower = p.to_ascii_lowercase();
            let value = lower.trim_end_matches('%');
            if matches!(
                value,
                "nan" | "-nan" | "inf" | "-inf" | "+inf" | "nan.0" | "infinity"
            ) {
                Piece::NonFinite
            } else if value.parse::<f64>().is_ok_and(f64::is_finite) {
                Piece::Finite
            } else {
                Piece::Word(p)
            }
        })
        .collect()
}

/// Whether `line` holds `nan` or `inf` as a word (not the `INF` of `INFO`): most lines do not,
/// and are passed over without being split.
fn says_non_finite(line: &str) -> bool {
    let b = line.as_bytes();
    let apart = |i: usize| b.get(i).is_none_or(|c| !c.is_ascii_alphanumeric());
    b.windows(3).enumerate().any(|(i, w)| {
        let lower = [w[0] | 0x20, w[1] | 0x20, w[2] | 0x20];
        (&lower == b"nan" || &lower == b"inf") && (i == 0 || apart(i - 1)) && apart(i + 3)
    })
}

/// Whether `line` is `before`'s template (the same words, numbers where it had numbers) with
/// at least one of its numbers now `nan` or `inf`, and `before` had none.
pub fn turns_non_finite(before: &str, line: &str) -> bool {
    if !says_non_finite(line) {
        return false;
    }
    let (was, now) = (pieces(before), pieces(line));
    let fields = was.iter().filter(|p| **p == Piece::Finite).count();
    was.len() == now.len()
        && fields >= MIN_FIELDS
        && !was.contains(&Piece::NonFinite)
        && was.iter().zip(&now).all(|(a, b)| match (a, b) {
            (Piece::Word(x), Piece::Word(y)) => x == y,
            (Piece::Finite, Piece::Finite | Piece::NonFinite) => true,
            _ => false,
        })
        && now.contains(&Piece::NonFinite)
}

#[cfg(test)]
mod tests {
    use super::turns_non_finite;

    #[test]
    fn a_column_that_turns_nan() {
        let before = "INFO:absl:Step 03454: -14.9189 E_h, variance=0.0443 E_h^2, pmove=0.51";
        let after = "INFO:absl:Step 03455: nan E_h, variance=nan E_h^2, pmove=0.51";
        assert!(turns_non_finite(before, after));
        assert!(!turns_non_finite(after, after), "nan before: not a turn");
        assert!(turns_non_finite(
            "epoch 3 | train 0.512 | val 0.611",
            "epoch 4 | train inf | val nan"
        ));
    }

    #[test]
    fn other_lines_are_no_turn() {
        // Another template, or a line with one number only.
        assert!(!turns_non_finite(
            "Step 10: 0.52 E_h, pmove=0.51",
            "Step 11: nan energy, pmove=0.51"
        ));
        assert!(!turns_non_finite("Loading shard 1", "Loading shard nan"));
    }
}
