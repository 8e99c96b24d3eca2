//! Path helpers for the command line: relative paths, and the output rule's refusals as
//! errors of the command line.

use super::args::usage;
use engine_core::toolchain::fsrules::{self, OutputError};
use std::path::{Component, Path, PathBuf};

/// Checks an output the command line names against the output rule (`fsrules::output`:
/// a regular file or nothing, not one of `inputs`) before any work is done; a refusal is
/// an error of the command line (exit status 2). The writing follows the rule again.
pub fn check_output(path: &Path, inputs: &[&Path]) -> anyhow::Result<()> {
    fsrules::check_output(path, inputs)
        .map(drop)
        .map_err(output_error)
}

/// An output error for the command line: a refusal is an error of the command line.
pub fn output_error(error: OutputError) -> anyhow::Error {
    if error.is_refusal() {
        usage(error.to_string())
    } else {
        error.into()
    }
}

/// `target` written relative to the folder `base` (`a/b.src` from `out/` is
/// `../a/b.src`), with `/` separators; the absolute path when no relative one exists.
pub fn relative_to(target: &Path, base: &Path) -> String {
    let (Ok(target_abs), Ok(base_abs)) = (target.canonicalize(), base.canonicalize()) else {
        return slashes(target);
    };
    let t: Vec<Component<'_>> = target_abs.components().collect();
    let b: Vec<Component<'_>> = base_abs.components().collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    // Sharing only the root (or a drive) means there is no useful relative path.
    if common <= 1 {
        return slashes(&target_abs);
    }
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for component in &t[common..] {
        out.push(component.as_os_str());
    }
    slashes(&out)
}

fn slashes(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        let dir = std::env::temp_dir().join(format!("hitbench-paths-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src/inc")).unwrap();
        std::fs::create_dir_all(dir.join("out")).unwrap();
        std::fs::write(dir.join("src/inc/a.src"), "").unwrap();
        assert_eq!(
            relative_to(&dir.join("src/inc/a.src"), &dir.join("out")),
            "../src/inc/a.src"
        );
        assert_eq!(
            relative_to(&dir.join("src/inc/a.src"), &dir.join("src")),
            "inc/a.src"
        );
        assert_eq!(relative_to(Path::new("no/such/file"), &dir), "no/such/file");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
