//! What the assembler reads: `INCLUDE` chains read each file once within a line budget
//! (issue 10 R5), `INCLUDE`/`INIFILE`/`SYMBOLFILE` read only regular files of bounded
//! size inside the source's folders (R6), and writing many `LIST` lines is linear (R10).

use engine_core::toolchain::asm::{self, AsmOptions, Assembly, DiskFiles, MemoryFiles};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A temporary folder, removed when dropped.
struct Temp(PathBuf);

impl Temp {
    fn new(tag: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "hitbench-asm-files-{tag}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `f` on a thread; panics if it has not finished within `seconds` (a hang or a
/// runaway).
fn finishes_within<T: Send + 'static>(seconds: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(seconds))
        .unwrap_or_else(|_| panic!("did not finish within {seconds} s"))
}

/// Assembles a file on disk the way `hitbench asm` does.
fn assemble_disk(path: &Path, options: &AsmOptions) -> Assembly {
    asm::assemble(path, options, &DiskFiles::for_source(path, options))
}

fn messages(a: &Assembly) -> String {
    a.diagnostics
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `f0.src` … `f{depth}.src`, each including the next twice; the last defines a label.
fn chain(depth: usize) -> Vec<(String, String)> {
    (0..=depth)
        .map(|i| {
            let text = if i == depth {
                "BINARY [\nlast\n\tend\n]\n".to_string()
            } else {
                format!("INCLUDE f{next}.src\nINCLUDE f{next}.src\n", next = i + 1)
            };
            (format!("f{i}.src"), text)
        })
        .collect()
}

#[test]
fn an_include_chain_that_doubles_reads_each_file_once() {
    const DEPTH: usize = 25;
    let a = finishes_within(60, || {
        let mut files = MemoryFiles::default();
        for (name, text) in chain(DEPTH) {
            files.insert(name, text);
        }
        asm::assemble(Path::new("f0.src"), &AsmOptions::default(), &files)
    });
    assert!(!a.has_errors(), "{}", messages(&a));
    // Each file once: 26 sources, one label, one `end`.
    assert_eq!(a.sources.len(), DEPTH + 1);
    assert_eq!(a.symbols.len(), 1);
    assert_eq!(a.hit.code(), [0x0C]);

    let dir = Temp::new("chain");
    for (name, text) in chain(DEPTH) {
        dir.write(&name, &text);
    }
    let root = dir.0.join("f0.src");
    let a = finishes_within(60, move || assemble_disk(&root, &AsmOptions::default()));
    assert!(!a.has_errors(), "{}", messages(&a));
    assert_eq!(a.sources.len(), DEPTH + 1);
}

#[test]
fn a_file_included_twice_by_other_spellings_is_still_read_once() {
    let dir = Temp::new("spellings");
    dir.write("lib/common.inc", "DEFINE common 1\n");
    let root = dir.write(
        "a.src",
        "INCLUDE lib/common.inc\nINCLUDE ./lib/../lib/common.inc\nINCLUDE common.inc\n",
    );
    let options = AsmOptions {
        include_dirs: vec![dir.0.join("lib")],
        ..AsmOptions::default()
    };
    let a = assemble_disk(&root, &options);
    assert!(a.diagnostics.is_empty(), "{}", messages(&a));
    assert_eq!(a.sources.len(), 2);
}

#[test]
fn an_include_cycle_is_still_an_error() {
    let mut files = MemoryFiles::default();
    files.insert("a.src", "INCLUDE b.src\n");
    files.insert("b.src", "INCLUDE a.src\n");
    let a = asm::assemble(Path::new("a.src"), &AsmOptions::default(), &files);
    assert!(messages(&a).contains("INCLUDE cycle"), "{}", messages(&a));
}

#[test]
fn expanded_lines_are_capped() {
    let limit = asm::MAX_EXPANDED_LINES;
    let mut files = MemoryFiles::default();
    files.insert("big.inc", "; filler\n".repeat(limit));
    files.insert("a.src", "INCLUDE big.inc\nDEFINE after 1\n");
    let a = asm::assemble(Path::new("a.src"), &AsmOptions::default(), &files);
    let text = messages(&a);
    assert!(a.has_errors(), "{text}");
    assert!(text.contains(&format!("more than {limit} lines")), "{text}");
    assert!(a.symbols.is_empty(), "nothing after the cap is read");
}

#[cfg(unix)]
#[test]
fn a_device_is_never_read_as_an_include() {
    let dir = Temp::new("device");
    let root = dir.write(
        "a.src",
        "INCLUDE /dev/zero\nINCLUDE zero\nINIFILE zero\nSYMBOLFILE zero\n",
    );
    let options = AsmOptions {
        include_dirs: vec![PathBuf::from("/dev")],
        ..AsmOptions::default()
    };
    let a = finishes_within(30, move || assemble_disk(&root, &options));
    let text = messages(&a);
    assert_eq!(a.diagnostics.len(), 4, "{text}");
    for d in &a.diagnostics {
        assert!(d.is_error(), "{d}");
        assert!(
            d.message
                .contains("/dev/zero is a device, not a regular file"),
            "{d}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_named_pipe_never_blocks_the_assembler() {
    let dir = Temp::new("fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(dir.0.join("pipe.inc"))
        .status()
        .unwrap();
    assert!(status.success());
    let root = dir.write(
        "a.src",
        "INCLUDE pipe.inc\nINIFILE pipe.inc\nSYMBOLFILE pipe.inc\n",
    );
    let a = finishes_within(30, move || assemble_disk(&root, &AsmOptions::default()));
    let text = messages(&a);
    assert_eq!(a.diagnostics.len(), 3, "{text}");
    assert!(
        a.diagnostics.iter().all(|d| d
            .message
            .contains("is a named pipe (FIFO), not a regular file")),
        "{text}"
    );
}

#[test]
fn files_outside_the_source_folders_are_refused_and_never_shown() {
    let outside = Temp::new("outside");
    let secret = outside.write("secret.inc", "SECRET-LINE-1 x y\nSECRET-LINE-2\n");
    let dir = Temp::new("project");
    let name = outside
        .0
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let root = dir.write(
        "a.src",
        &format!(
            "INCLUDE {}\nINCLUDE ../{name}/secret.inc\nINIFILE {}\nSYMBOLFILE ../{name}/secret.inc\n",
            secret.display(),
            secret.display()
        ),
    );
    let a = assemble_disk(&root, &AsmOptions::default());
    let text = messages(&a);
    assert!(!text.contains("SECRET-LINE"), "{text}");
    assert_eq!(a.diagnostics.len(), 4, "{text}");
    assert!(
        a.diagnostics
            .iter()
            .all(|d| d.is_error() && d.message.contains("is outside the folders")),
        "{text}"
    );
    // An include folder given with `--include` is allowed.
    let options = AsmOptions {
        include_dirs: vec![outside.0.clone()],
        ..AsmOptions::default()
    };
    let root = dir.write("b.src", "INCLUDE secret.inc\n");
    let a = assemble_disk(&root, &options);
    assert!(messages(&a).contains("SECRET-LINE-1"), "{}", messages(&a));
}

#[test]
fn an_oversized_include_is_refused_unread() {
    let dir = Temp::new("big");
    let big = dir.0.join("big.inc");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(engine_core::toolchain::fsrules::MAX_TEXT_FILE_BYTES + 1)
        .unwrap();
    let root = dir.write("a.src", "INCLUDE big.inc\n");
    let a = assemble_disk(&root, &AsmOptions::default());
    let text = messages(&a);
    assert_eq!(a.diagnostics.len(), 1, "{text}");
    assert!(text.contains("big.inc is larger than"), "{text}");
}

#[test]
fn writing_eighty_thousand_list_lines_is_linear() {
    const LINES: usize = 80_000;
    let mut source = String::with_capacity(LINES * 48);
    for i in 0..LINES {
        let section = ["Patch", "GlobalHitList", "EventMappingEquate"][i % 3];
        source.push_str(&format!("LIST [{section}] k{i}=v{i}\n"));
    }
    let a = asm::assemble_text(
        Path::new("many.src"),
        &source,
        &AsmOptions::default(),
        &MemoryFiles::default(),
    );
    assert!(a.diagnostics.is_empty());
    // The quadratic writer took minutes here in a debug build; the linear one takes well
    // under a second. The bound is generous for a loaded machine.
    let started = Instant::now();
    let hot = a.hot();
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
    let bytes = hot.to_bytes();
    let text = String::from_utf8(bytes).unwrap();
    assert_eq!(
        text.lines().count(),
        LINES + 3 + 2,
        "entries, headers, blank lines"
    );
    assert!(
        text.starts_with("[Patch]\nk0=v0\nk3=v3\n"),
        "{}",
        &text[..40]
    );
    assert!(text.contains("\n\n[GlobalHitList]\nk1=v1\nk4=v4\n"));
}

#[test]
fn the_hot_output_matches_one_insert_per_line() {
    let source = "LIST [Patch] 1=a\nLIST [Track] 2 = b\nLIST [patch] 3=c ; comment\n\
                  LIST [Track] 4=\"q;x\"\nLIST [TrackData] 5=6\nBASEID_TRACKDATA 9\nBINARY [\nt\n\tend\n]\n";
    let a = asm::assemble_text(
        Path::new("x.src"),
        source,
        &AsmOptions::default(),
        &MemoryFiles::default(),
    );
    let mut expected = engine_core::toolchain::formats::hot::HotDocument::default();
    for line in &a.hot_lines {
        let _ = expected.insert(&line.section, &line.key, &line.value);
    }
    assert_eq!(
        String::from_utf8(a.hot().to_bytes()).unwrap(),
        String::from_utf8(expected.to_bytes()).unwrap()
    );
}
