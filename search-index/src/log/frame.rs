//! Whether a cleaned line is a traceback frame or a line of code shown in one, in the shapes
//! Python, IPython, `rich`, C++ and the relays that flatten them print.

/// A traceback frame or a line of code shown in one: Python's `File "..."`, also behind another
/// process's output or a server's record prefix ([`is_prefixed_frame`]) or broken inside its path
/// ([`is_frame_tail`]); IPython's `Cell In[3], line 9`, `Input In [3], in <cell line: 1>()`,
/// `----> 9 code`, numbered listings and a file and function on one line ([`is_path_frame`]);
/// `rich`'s `❱ 353 │ main()`, and its frame wrapped before `in` or inside the path
/// ([`is_wrapped_function`], [`is_bare_path`]); C++ `frame #12`; carets; marks where a paste
/// left lines out ([`is_elision`]).
pub fn is_frame(text: &str) -> bool {
    text.starts_with("File ")
        || text.starts_with("frame #")
        || text.starts_with("Input In [")
        || is_path_frame(text)
        || text.starts_with(['^', '~'])
        || text.starts_with("Cell In[")
        || text.starts_with("<ipython-input-")
        || is_ipython_arrow(text)
        || is_rich_arrow(text)
        || is_elision(text)
        || text
            .split_whitespace()
            .next()
            .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()))
        || text.chars().all(|c| c == '-' || c == '=' || c == ' ')
        || is_frame_tail(text)
        || is_prefixed_frame(text)
        || is_wrapped_function(text)
        || is_bare_path(text)
}

/// Where a paste left lines out: a line that begins with `...`, or is all one bracketed mark
/// (`[...]`, `[... 40 lines omitted ...]`, pdb's `[... skipping 3 hidden frame(s)]`) or `…`.
/// A line that goes on after its `[...]` is the rest of a line cut at its start.
fn is_elision(text: &str) -> bool {
    let bracketed = (text.starts_with("[...") || text.starts_with("[…"))
        && text.ends_with(']')
        && text.matches(']').count() == 1;
    text.starts_with("...") || bracketed || text == "…"
}

/// A Python frame's `File "..."` line, at the start or behind something else.
pub(super) fn is_file_frame(text: &str) -> bool {
    text.starts_with("File ") || is_prefixed_frame(text)
}

/// A Python frame's whole `File "path", line 12, in function` line.
pub(super) fn is_python_frame(text: &str) -> bool {
    text.strip_prefix("File \"").is_some_and(is_frame_tail)
}

/// A Python frame behind something another process printed on the same line
/// (`torch.cuda File "/opt/torch/_tensor.py", line 487, in backward`) or behind a server's
/// record prefix (`... MODEL_LOG - File "/srv/handler.py", line 102, in predict`).
fn is_prefixed_frame(text: &str) -> bool {
    // Most lines hold no quote: a quick look first, the reader asks this of every line.
    text.contains('"')
        && text
            .find(" File \"")
            .is_some_and(|at| is_frame_tail(&text[at + " File \"".len()..]))
}

/// The function of a frame `rich` wrapped before its `in`: `in _inner_training_loop`.
fn is_wrapped_function(text: &str) -> bool {
    text.strip_prefix("in ").is_some_and(|f| {
        let name = f.split('(').next().unwrap_or_default();
        !name.is_empty() && name.chars().all(is_name_char)
    })
}

/// A file's path alone on its line, as `rich` leaves the first part of a frame it wrapped inside
/// the path (`/opt/venv/lib/python3.10/site-packages/deepspeed/runtime/zero/partitioned_pa`).
fn is_bare_path(text: &str) -> bool {
    let rooted = text.starts_with('/')
        || text.starts_with("~/")
        || text.get(1..3).is_some_and(|s| s == ":\\");
    rooted && !text.contains(char::is_whitespace) && text.matches(['/', '\\']).count() >= 3
}

/// The rest of a Python frame's `File "..."` line that a paste broke inside its path
/// (`packages/torch/utils/data/dataloader.py", line 517, in __next__`): the path's end, its
/// closing quote, the line number and the function.
fn is_frame_tail(text: &str) -> bool {
    let Some((path, rest)) = text.split_once("\", line ") else {
        return false;
    };
    let Some((number, function)) = rest.split_once(", in ") else {
        return false;
    };
    !path.contains(char::is_whitespace)
        && !number.is_empty()
        && number.chars().all(|c| c.is_ascii_digit())
        && !function.trim().is_empty()
}

/// A frame named by its file and function on one line: IPython's before 7.0
/// (`~/lib/python3.6/site-packages/keras/engine/training.py in fit(self, x, y)`,
/// `<ipython-input-4-1b2c> in <module>()`) and `rich`'s, with the line number
/// (`/srv/train.py:353 in <module>`). A paste may cut it after the name, and `rich` wraps a
/// long one: its path alone (`/opt/deepspeed/runtime/config.py:`), or its path and `in` with
/// the function on the next line.
pub(super) fn is_path_frame(text: &str) -> bool {
    path_frame(text).is_some()
}

/// The file and the function's name (when the line has it) of a frame [`is_path_frame`] reads.
pub(super) fn path_frame(text: &str) -> Option<(&str, Option<&str>)> {
    // The file's name ends the first word, or a path from a drive letter holds spaces: a quick
    // look first, the reader asks this of every line.
    let first = text.split(' ').next().unwrap_or_default();
    if !first.contains(".py") && text.get(1..3) != Some(":\\") {
        return None;
    }
    let (place, function) = match text.split_once(" in ") {
        Some((place, function)) => (place, Some(function)),
        None => (text.strip_suffix(" in").unwrap_or(text), None),
    };
    let line_number = place
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .strip_suffix(':');
    let file = line_number.unwrap_or(place);
    let python_file = [".py", ".pyx", ".pyc"].iter().any(|e| file.ends_with(e));
    let name = function.map(|f| f.split('(').next().unwrap_or_default().trim_end());
    let named = match name {
        Some(name) => !name.is_empty() && name.chars().all(is_name_char),
        // A file's name alone is no frame; with its line number, or `in`, it is.
        None => line_number.is_some() || place.len() < text.len(),
    };
    // Windows paths may hold spaces (`C:\Program Files\Python311\Lib\...`); others are read as
    // one word, so that prose holding a file's name is no frame.
    let drive = place.get(1..3) == Some(":\\");
    (python_file && (drive || !place.contains(char::is_whitespace)) && named)
        .then_some((file, name))
}

/// A character of a Python function's name as a frame shows it (`<module>`, `Trainer.train`).
pub(super) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '<' | '>' | '.')
}

/// `rich`'s arrow at the current line of a frame: `❱ 353 │   main()`.
fn is_rich_arrow(text: &str) -> bool {
    text.strip_prefix('❱')
        .is_some_and(|rest| rest.trim_start().starts_with(|c: char| c.is_ascii_digit()))
}

/// IPython's arrow at the current line of a frame: `----> 3 code`, and as the line numbers grow
/// wider, `--> 284 code` and `-> 1470 code`.
fn is_ipython_arrow(text: &str) -> bool {
    text.starts_with('-')
        && text
            .trim_start_matches('-')
            .strip_prefix('>')
            .is_some_and(|rest| rest.trim_start().starts_with(|c: char| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::read_log;

    #[test]
    fn frames_behind_other_output_and_wrapped_frames_are_frames() {
        for line in [
            "torch.cuda File \"/usr/local/lib/python3.8/dist-packages/torch/_tensor.py\", line 487, in backward",
            "[INFO ] W-9000-gpt2_1.0-stdout MODEL_LOG - File \"/srv/ts/service.py\", line 102, in predict",
            "in _inner_training_loop",
            "/opt/venv/lib/python3.10/site-packages/deepspeed/runtime/zero/partitioned_pa",
            "C:\\tools\\venv\\Lib\\site-packages\\triton",
            "[... 40 lines omitted ...]",
            "C:\\Program Files\\Python311\\Lib\\site-packages\\torch\\nn\\modules\\module.py:1532 in _wrapped_call_impl",
            "…",
        ] {
            assert!(is_frame(line), "{line}");
        }
        for line in [
            "RuntimeError: File \"x.py\" is not valid",
            "in 3 steps",
            "/dev/shm",
            "/data/run 1/model.pt",
            "[...] exits with return code = -9",
            "[...]ror: CUDA error: an illegal memory access was encountered",
        ] {
            assert!(!is_frame(line), "{line}");
        }
    }

    /// A frame's `File "..."` line broken inside its path reads as two frame lines, not as a
    /// frame and an exception: the error line is still the one at the traceback's end.
    #[test]
    fn the_rest_of_a_frame_broken_inside_its_path_is_a_frame() {
        assert!(is_frame(
            "packages/torch/utils/data/dataloader.py\", line 517, in __next__"
        ));
        assert!(!is_frame("ValueError: bad value\", line 3, in config"));
        assert!(!is_frame("loss.py\", line two, in forward"));
        assert!(is_frame(
            "/opt/py36/lib/python3.6/site-packages/tensorflow/python/client/session.py in _do_call(self, fn, *args)"
        ));
        assert!(is_frame(
            "~/venv/lib/python3.9/site-packages/torch/nn/modules/module.py in load_state_dict"
        ));
        assert!(is_frame("/tmp/ipykernel_48211/2739104158.py in <module>"));
        assert!(is_frame("Input In [3], in <cell line: 1>()"));
        assert!(!is_frame("ValueError: no file train.py in data(dir)"));
        assert!(!is_frame("error in train.py in epoch 3"));
        assert!(is_frame("/home/u/proj/train.py:353 in <module>"));
        assert!(is_frame(
            "/opt/conda/lib/python3.10/site-packages/transformers/trainer.py:1662 in"
        ));
        assert!(is_frame(
            "/opt/conda/lib/python3.10/site-packages/deepspeed/runtime/config.py:"
        ));
        assert!(!is_frame("train.py: error: unrecognized arguments: --fp16"));
        assert!(!is_frame("saved to /ckpt/model.py"));
        assert!(!is_frame("model.py"));
        assert!(is_frame("❱ 353 │   main()"));
        let log = "Traceback (most recent call last):
  File \"/home/lab/envs/nerf/lib/python3.7/site-
packages/torch/utils/data/dataloader.py\", line 517, in __next__
    data = self._next_data()
RuntimeError: stack expects each tensor to be equal size, but got [2, 2400, 3] at entry 0 and [2, 2332, 3] at entry 1
";
        let lines = read_log(log).error_lines;
        assert_eq!(lines.len(), 1, "{lines:#?}");
        assert!(
            lines[0].text.starts_with("RuntimeError: stack"),
            "{lines:#?}"
        );
    }
}
