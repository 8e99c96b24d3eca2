//! Tests of the output rule: what is refused (devices, named pipes, folders, links to
//! nothing, an input), that nothing blocks, and that a failed write leaves the old file.

use super::super::output::*;
use super::{Temp, within_10s};
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// Every non-regular thing an output path can name, each made in `t`: a device through
/// a link, a device named directly, a named pipe, a folder, a link to nothing.
#[cfg(unix)]
fn non_regular_targets(t: &Temp) -> Vec<(PathBuf, &'static str)> {
    let device_link = t.0.join("null.wav");
    std::os::unix::fs::symlink("/dev/null", &device_link).unwrap();
    let pipe = t.0.join("pipe.wav");
    super::mkfifo(&pipe);
    let dangling = t.0.join("dangling.wav");
    std::os::unix::fs::symlink(t.0.join("nothing-here"), &dangling).unwrap();
    vec![
        (device_link, "a device"),
        (PathBuf::from("/dev/null"), "a device"),
        (pipe, "a named pipe (FIFO)"),
        (t.dir("folder.wav"), "a folder"),
        (dangling, "a link to nothing"),
    ]
}

#[cfg(unix)]
#[test]
fn outputs_over_non_regular_files_are_refused_without_blocking() {
    let t = Temp::new("out-nonregular");
    for (target, kind) in non_regular_targets(&t) {
        let shown = target.clone();
        let result =
            within_10s(move || write_output(&target, &[], b"data").map_err(|e| e.to_string()))
                .unwrap_or_else(|| panic!("writing {} blocked", shown.display()));
        let message = result.expect_err(&format!("{} was written", shown.display()));
        assert_eq!(
            message,
            format!(
                "{} is {kind}, not a regular file: HitBench writes only regular files",
                shown.display()
            )
        );
        let start = within_10s({
            let target = shown.clone();
            move || {
                Output::create(&target, &[])
                    .map(drop)
                    .map_err(|e| e.is_refusal())
            }
        })
        .unwrap();
        assert_eq!(start, Err(true), "{}", shown.display());
    }
    // Still what they were, and no temporary file left beside them.
    let meta = fs::metadata(t.0.join("pipe.wav")).unwrap();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type()));
    assert!(fs::metadata(t.0.join("folder.wav")).unwrap().is_dir());
    let left: Vec<_> = fs::read_dir(&t.0)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 4, "{left:?}");
}

#[cfg(unix)]
#[test]
fn an_output_that_is_an_input_is_refused_by_any_name() {
    let t = Temp::new("out-input");
    let input = t.file("script.qa", b"0.0 ui ui_click\n");
    let link = t.0.join("link.qa");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let hard = t.0.join("hard.qa");
    fs::hard_link(&input, &hard).unwrap();
    let dotted = t.0.join(".").join("script.qa");
    for target in [&input, &link, &hard, &dotted] {
        let error = write_output(target, &[Path::new("other"), &input], b"<xml/>").unwrap_err();
        assert!(error.is_refusal());
        assert_eq!(
            error.to_string(),
            format!(
                "{} is the same file as the input {}: choose another output",
                target.display(),
                input.display()
            )
        );
    }
    assert_eq!(fs::read(&input).unwrap(), b"0.0 ui ui_click\n");
}

#[test]
fn a_failed_write_leaves_the_old_file_whole() {
    let t = Temp::new("out-fail");
    let target = t.file("out.jsonl", b"the old file\n");
    let error = write_output_with(&target, &[], |out| {
        out.write_all(&[b'x'; 100_000])?;
        Err::<(), _>(io::Error::new(
            io::ErrorKind::StorageFull,
            "No space left on device",
        ))
    })
    .unwrap_err();
    assert!(!error.is_refusal());
    assert_eq!(
        error.to_string(),
        format!("cannot write {}: No space left on device", target.display())
    );
    assert_eq!(fs::read(&target).unwrap(), b"the old file\n");
    // An output dropped before its commit leaves nothing either.
    let mut output = Output::create(&target, &[]).unwrap();
    output.write_all(b"half").unwrap();
    drop(output);
    let left: Vec<_> = fs::read_dir(&t.0)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("out.jsonl")]);
    assert_eq!(fs::read(&target).unwrap(), b"the old file\n");
}

#[cfg(unix)]
#[test]
fn a_written_output_replaces_the_file_a_link_names_and_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let t = Temp::new("out-link");
    let real = t.file("real.wav", b"old");
    fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
    let link = t.0.join("link.wav");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    write_output(&link, &[], b"new").unwrap();
    assert_eq!(fs::read(&real).unwrap(), b"new");
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o640
    );
    let fresh = t.0.join("fresh.wav");
    write_output(&fresh, &[], b"first").unwrap();
    assert_eq!(fs::read(&fresh).unwrap(), b"first");
}

#[cfg(unix)]
#[test]
fn a_pipe_put_in_the_targets_place_while_writing_is_not_replaced() {
    let t = Temp::new("out-swap");
    let target = t.0.join("out.wav");
    let mut output = Output::create(&target, &[]).unwrap();
    output.write_all(b"data").unwrap();
    super::mkfifo(&target);
    let error = output.commit().unwrap_err();
    assert!(error.is_refusal(), "{error}");
    let meta = fs::metadata(&target).unwrap();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type()));
    assert_eq!(fs::read_dir(&t.0).unwrap().count(), 1);
}
