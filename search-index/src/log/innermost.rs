//! Where an exception was raised: the innermost Python frame of the traceback above it.
//!
//! Takes the lines before an exception line (its context); yields the last frame shown, as its
//! file's path and its function, in the shapes Python, IPython and `rich` print. The diagnosis
//! compares it with the places an entry's signatures are raised (`raised_in:`).

use super::frame::path_frame;

/// A Python frame: the path of its file (with `/` between folders) and its function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonFrame<'a> {
    pub path: String,
    pub function: String,
    /// The frame's line as the log shows it.
    pub line: &'a str,
}

impl PythonFrame<'_> {
    /// Whether the frame is in `place`, a function named as `folder/file.py:function` (the end of
    /// its file's path, then its name): the frame's path ends with that end, whole folders.
    pub fn is_in(&self, place: &str) -> bool {
        let Some((file, function)) = place.rsplit_once(':') else {
            return false;
        };
        let at_folder =
            (self.path.strip_suffix(file)).is_some_and(|p| p.is_empty() || p.ends_with('/'));
        function == self.function && at_folder
    }
}

/// The functions a comprehension, a lambda or a generator expression runs in: they stand for
/// the function around them.
const INLINE: [&str; 5] = [
    "<listcomp>",
    "<dictcomp>",
    "<setcomp>",
    "<genexpr>",
    "<lambda>",
];

/// The innermost Python frame among the lines before an exception (`context`): the last frame
/// shown, past a comprehension's or a lambda's. Reads Python's `File "...", line 12, in function`,
/// IPython's (`File ~/x.py:1527, in Module._call_impl(self)` since 8.0, `~/x.py in fit(self)`
/// before) and `rich`'s (`.../trainer.py:1662 in compute_loss`); a class's or a Cython module's
/// dots before the function's name are left out. A last frame that is no Python file's function
/// (generated code, `<string>`, a module's top level) names no place.
pub fn innermost_python_frame(context: &str) -> Option<PythonFrame<'_>> {
    for line in context.lines().rev().map(str::trim) {
        let Some((path, function)) = file_and_function(line) else {
            continue;
        };
        if INLINE.contains(&function) {
            continue;
        }
        let name = function.rsplit('.').next()?;
        let python = [".py", ".pyx"].iter().any(|e| path.ends_with(e));
        let named = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
        return (python && named).then(|| PythonFrame {
            path: path.replace('\\', "/"),
            function: name.to_owned(),
            line,
        });
    }
    None
}

/// The file and the function of a frame's line, in any shape [`innermost_python_frame`] reads.
fn file_and_function(line: &str) -> Option<(&str, &str)> {
    let (path, function) = if let Some(at) = line.find("File \"") {
        let (path, rest) = line[at + "File \"".len()..].split_once("\", line ")?;
        (path, rest.split_once(", in ")?.1)
    } else if let Some(rest) = line.strip_prefix("File ") {
        let (place, function) = rest.split_once(", in ")?;
        (without_line_number(place), function)
    } else if let Some((path, function)) = path_frame(line) {
        (path, function?)
    } else {
        return None;
    };
    Some((path, function.split('(').next()?.trim()))
}

/// A place without the line number after its colon: `x.py:1527` is `x.py`.
fn without_line_number(place: &str) -> &str {
    let path = place.trim_end_matches(|c: char| c.is_ascii_digit());
    path.strip_suffix(':').unwrap_or(place)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_innermost_frame_is_where_an_exception_was_raised() {
        let context = "Traceback (most recent call last):
  File \"/srv/train.py\", line 61, in train_step
    optimizer.apply_gradients(zip(grads, params))
  File \"/venv/lib/site-packages/keras/optimizers/utils.py\", line 77, in filter_empty_gradients
    raise ValueError(\"No gradients provided for any variable\")";
        let frame = innermost_python_frame(context).unwrap();
        assert_eq!(frame.function, "filter_empty_gradients");
        assert!(frame.line.ends_with("in filter_empty_gradients"));
        assert!(frame.is_in("optimizers/utils.py:filter_empty_gradients"));
        assert!(frame.is_in("utils.py:filter_empty_gradients"));
        // Another folder's file of that name, a file whose name only ends the same, another
        // function: not where the exception was raised.
        assert!(!frame.is_in("data/utils.py:filter_empty_gradients"));
        assert!(!frame.is_in("ers/utils.py:filter_empty_gradients"));
        assert!(!frame.is_in("optimizers/utils.py:apply_gradients"));
        let ipython = "~/venv/lib/python3.9/site-packages/torch/nn/modules/module.py in load_state_dict(self, state_dict, strict)\n   1496         if len(error_msgs) > 0:";
        let ipython8 = "File ~/venv/lib/python3.11/site-packages/torch/nn/modules/module.py:1527, in Module._call_impl(self, *args, **kwargs)\n   1522 # If we don't have any hooks";
        let cython = "File \"h5py/h5f.pyx\", line 106, in h5py.h5f.open";
        let comprehension = "File \"/venv/lib/site-packages/mylib/io/batch.py\", line 9, in stack_all\n    return [pad(x) for x in xs]\nFile \"/venv/lib/site-packages/mylib/io/batch.py\", line 9, in <listcomp>";
        let windows =
            "File \"C:\\venv\\Lib\\site-packages\\h5py\\_hl\\files.py\", line 231, in make_fid";
        let rich =
            "/opt/conda/lib/python3.10/site-packages/transformers/trainer.py:1662 in compute_loss";
        for (context, place) in [
            (ipython, "modules/module.py:load_state_dict"),
            (ipython8, "modules/module.py:_call_impl"),
            (cython, "h5py/h5f.pyx:open"),
            (comprehension, "io/batch.py:stack_all"),
            (windows, "_hl/files.py:make_fid"),
            (rich, "transformers/trainer.py:compute_loss"),
        ] {
            assert!(
                innermost_python_frame(context).unwrap().is_in(place),
                "{context}"
            );
        }
        // A notebook cell, generated code, a module's top level, a C++ frame and no frame at all
        // are no Python function's file; nor is a last frame that is one of those, over a
        // readable one.
        for context in [
            "Input In [3], in <cell line: 1>()",
            "File \"/srv/fit.py\", line 3, in step\nFile \"<string>\", line 1, in <module>",
            "File \"/srv/fit.py\", line 3, in <module>",
            "frame #3: at::native::embedding(at::Tensor const&) + 0x1f",
            "loading weights from model.bin",
        ] {
            assert_eq!(innermost_python_frame(context), None, "{context}");
        }
    }
}
