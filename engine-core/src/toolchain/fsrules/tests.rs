//! Tests of the file rules: walking with each link policy, depth and loop limits, and
//! the bounded reader's refusals (outside, links, devices, named pipes, size).

use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

mod output;

/// A folder under the system temp dir, removed when dropped.
struct Temp(PathBuf);

impl Temp {
    fn new(tag: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("hitbench-fsrules-{tag}-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    fn file(&self, relative: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, bytes).unwrap();
        path
    }

    fn dir(&self, relative: &str) -> PathBuf {
        let path = self.0.join(relative);
        fs::create_dir_all(&path).unwrap();
        path
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn relatives(walk: &Walk) -> Vec<String> {
    walk.entries
        .iter()
        .map(|e| e.relative.to_string_lossy().replace('\\', "/"))
        .collect()
}

/// Runs `f` on a thread; `None` if it has not finished within 10 s (a hang).
fn within_10s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(10)).ok()
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn walk_lists_files_before_folders_in_name_order() {
    let t = Temp::new("order");
    t.file("b.wav", b"b");
    t.file("Sfx/boom.wav", b"x");
    t.file("a.src", b"a");
    t.file("sfx/zap.wav", b"z");
    t.dir("empty");
    let walk = walk(&t.0, &WalkOptions::default()).unwrap();
    assert_eq!(
        relatives(&walk),
        [
            "a.src",
            "b.wav",
            "Sfx",
            "Sfx/boom.wav",
            "empty",
            "sfx",
            "sfx/zap.wav"
        ]
    );
    assert!(walk.refused.is_empty(), "{:?}", walk.refused);
    assert_eq!(walk.files().count(), 4);
    assert_eq!(walk.folders().count(), 3);
}

#[test]
fn walk_of_a_missing_folder_or_a_file_is_an_error() {
    let t = Temp::new("missing");
    let file = t.file("x.txt", b"x");
    assert!(matches!(
        walk(&t.0.join("nope"), &WalkOptions::default()),
        Err(Refusal::NotFound { .. })
    ));
    assert!(matches!(
        walk(&file, &WalkOptions::default()),
        Err(Refusal::NotAFolder { .. })
    ));
}

#[test]
fn hidden_folders_are_skipped_when_asked() {
    let t = Temp::new("hidden");
    t.file(".git/objects/x.src", b"x");
    t.file("a.src", b"a");
    let options = WalkOptions {
        skip_hidden: true,
        ..WalkOptions::default()
    };
    assert_eq!(relatives(&walk(&t.0, &options).unwrap()), ["a.src"]);
    assert_eq!(
        walk(&t.0, &WalkOptions::default()).unwrap().files().count(),
        2
    );
}

#[test]
fn folders_deeper_than_the_limit_are_refused() {
    let t = Temp::new("deep");
    let deep: Vec<String> = (0..40).map(|i| format!("d{i}")).collect();
    t.file(&format!("{}/x.wav", deep.join("/")), b"x");
    let walk = walk(&t.0, &WalkOptions::default()).unwrap();
    assert!(walk.entries.iter().all(|e| e.depth <= MAX_WALK_DEPTH));
    assert_eq!(walk.folders().count(), MAX_WALK_DEPTH);
    assert_eq!(walk.files().count(), 0);
    assert!(walk.refused.is_empty());
    assert_eq!(
        walk.not_entered,
        [t.0.join(deep[..=MAX_WALK_DEPTH].join("/"))]
    );
    let options = WalkOptions::default();
    let too_deep: Vec<Refusal> = walk.too_deep(&options).collect();
    assert!(
        too_deep[0]
            .to_string()
            .ends_with("is nested more than 32 folders deep; it is not read")
    );
    let shallow = WalkOptions {
        max_depth: 0,
        ..WalkOptions::default()
    };
    let top = super::walk(&t.0, &shallow).unwrap();
    assert_eq!(relatives(&top), Vec::<String>::new());
    assert_eq!(top.not_entered, [t.0.join("d0")]);
}

#[cfg(unix)]
#[test]
fn links_inside_are_followed_and_links_leaving_are_refused() {
    use std::os::unix::fs::symlink;
    let outside = Temp::new("links-outside");
    let secret = outside.file("secret.wav", b"secret");
    outside.file("more/a.wav", b"a");
    let t = Temp::new("links");
    let real = t.file("real/inside.wav", b"inside");
    symlink(&real, t.0.join("alias.wav")).unwrap();
    symlink(t.0.join("real"), t.0.join("again")).unwrap();
    symlink(&secret, t.0.join("leak.wav")).unwrap();
    symlink(outside.0.join("more"), t.0.join("elsewhere")).unwrap();
    symlink(t.0.join("gone.wav"), t.0.join("dangling.wav")).unwrap();

    let stay = walk(&t.0, &WalkOptions::default()).unwrap();
    assert_eq!(relatives(&stay), ["alias.wav", "real", "real/inside.wav"]);
    let mut refused: Vec<String> = stay.refused.iter().map(|r| r.to_string()).collect();
    refused.sort();
    assert_eq!(refused.len(), 3, "{refused:?}");
    assert!(
        refused[0].ends_with("dangling.wav is a link to nothing"),
        "{refused:?}"
    );
    assert!(
        refused[1].contains("elsewhere is a link leading outside"),
        "{refused:?}"
    );
    assert!(
        refused[2].contains("leak.wav is a link leading outside"),
        "{refused:?}"
    );

    let options = WalkOptions {
        links: LinkPolicy::FollowAnywhere,
        ..WalkOptions::default()
    };
    let anywhere = walk(&t.0, &options).unwrap();
    assert_eq!(
        relatives(&anywhere),
        [
            "alias.wav",
            "elsewhere",
            "elsewhere/a.wav",
            "leak.wav",
            "real",
            "real/inside.wav"
        ]
    );
    assert_eq!(anywhere.refused.len(), 1, "{:?}", anywhere.refused);
}

#[cfg(unix)]
#[test]
fn link_loops_and_link_fans_stay_finite() {
    use std::os::unix::fs::symlink;
    let outside = Temp::new("fan-outside");
    // d0 → (x, y) → d1 → (x, y) → … : 2^20 paths if every link were walked.
    for level in 0..20 {
        let dir = outside.dir(&format!("d{level}"));
        symlink(outside.0.join(format!("d{}", level + 1)), dir.join("x")).unwrap();
        symlink(outside.0.join(format!("d{}", level + 1)), dir.join("y")).unwrap();
        fs::write(dir.join("f.wav"), b"f").unwrap();
    }
    outside.dir("d20");
    // A loop back to the walked folder's own link.
    symlink(&outside.0, outside.0.join("d20").join("up")).unwrap();
    let t = Temp::new("fan");
    symlink(outside.0.join("d0"), t.0.join("start")).unwrap();
    let options = WalkOptions {
        links: LinkPolicy::FollowAnywhere,
        ..WalkOptions::default()
    };
    let walked = within_10s(move || walk(&t.0, &options).map(|w| (w.entries.len(), w.refused)))
        .expect("the walk must finish");
    let (entries, _refused) = walked.unwrap();
    // Every real folder once (21 folders, 20 files), plus the outside root reached by
    // `up` once: bounded, not 2^20.
    assert!(entries < 200, "{entries} entries");
}

#[cfg(unix)]
#[test]
fn a_link_to_an_ancestor_is_a_loop() {
    use std::os::unix::fs::symlink;
    let t = Temp::new("loop");
    t.file("a/x.wav", b"x");
    symlink(&t.0, t.0.join("a").join("up")).unwrap();
    let options = WalkOptions {
        links: LinkPolicy::FollowAnywhere,
        ..WalkOptions::default()
    };
    // Inside the walked folder: not walked again (its files are listed under their
    // real path). With the link leading to a folder outside that contains it, walkdir
    // sees the loop.
    let walk_inside = walk(&t.0, &options).unwrap();
    assert_eq!(relatives(&walk_inside), ["a", "a/x.wav"]);
    let walk_sub = walk(&t.0.join("a"), &options).unwrap();
    assert!(
        walk_sub
            .refused
            .iter()
            .any(|r| matches!(r, Refusal::Loop { .. })),
        "{:?}",
        walk_sub.refused
    );
}

#[cfg(unix)]
#[test]
fn walk_refuses_named_pipes() {
    let t = Temp::new("walk-fifo");
    mkfifo(&t.0.join("pipe.src"));
    t.file("a.src", b"a");
    let walk = walk(&t.0, &WalkOptions::default()).unwrap();
    assert_eq!(relatives(&walk), ["a.src"]);
    assert_eq!(
        walk.refused
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [format!(
            "{} is a named pipe (FIFO), not a regular file",
            t.0.join("pipe.src").display()
        )]
    );
}

#[test]
fn reads_inside_and_refuses_outside() {
    let outside = Temp::new("read-outside");
    let secret = outside.file("secret.txt", b"root:x:0:0");
    let t = Temp::new("read");
    let a = t.file("src/a.src", b"hello");
    let rules = ReadRules::within(std::slice::from_ref(&t.0));
    assert_eq!(rules.read(&a).unwrap(), b"hello");
    let escape = t.0.join("src/../../").join(
        outside
            .0
            .file_name()
            .map(PathBuf::from)
            .unwrap()
            .join("secret.txt"),
    );
    for path in [secret.clone(), escape] {
        match rules.read(&path) {
            Err(e @ Refusal::Outside { .. }) => {
                let text = e.to_string();
                assert!(text.contains("is outside the folders"), "{text}");
                assert!(!text.contains("root:x"), "{text}");
            }
            other => panic!("{} gave {other:?}", path.display()),
        }
    }
    assert!(matches!(
        rules.read(&t.0.join("nope.src")),
        Err(Refusal::NotFound { .. })
    ));
    assert!(matches!(
        rules.read(&t.0.join("src")),
        Err(Refusal::NotRegular {
            kind: "a folder",
            ..
        })
    ));
    assert!(matches!(
        ReadRules::within(&[]).read(&a),
        Err(Refusal::Outside { .. })
    ));
}

#[cfg(unix)]
#[test]
fn links_out_of_their_root_are_refused_unless_followed_anywhere() {
    use std::os::unix::fs::symlink;
    let outside = Temp::new("rlink-outside");
    let secret = outside.file("secret.txt", b"secret");
    let t = Temp::new("rlink");
    let real = t.file("real.src", b"real");
    symlink(&secret, t.0.join("leak.src")).unwrap();
    symlink(&real, t.0.join("alias.src")).unwrap();
    symlink(&outside.0, t.0.join("outdir")).unwrap();
    let rules = ReadRules::within(std::slice::from_ref(&t.0));
    assert_eq!(rules.read(&t.0.join("alias.src")).unwrap(), b"real");
    for name in ["leak.src", "outdir/secret.txt"] {
        let refusal = rules.read(&t.0.join(name)).unwrap_err();
        assert!(
            matches!(refusal, Refusal::LinkOutside { .. }),
            "{name}: {refusal:?}"
        );
        assert!(refusal.to_string().contains("is a link leading outside"));
    }
    let anywhere = rules.clone().with_links(LinkPolicy::FollowAnywhere);
    assert_eq!(anywhere.read(&t.0.join("leak.src")).unwrap(), b"secret");
    // A second root holding the target does not make a link from the first one fine.
    let both = ReadRules::within(&[t.0.clone(), outside.0.clone()]);
    assert!(matches!(
        both.read(&t.0.join("leak.src")),
        Err(Refusal::LinkOutside { .. })
    ));
    assert_eq!(both.read(&secret).unwrap(), b"secret");
}

#[cfg(unix)]
#[test]
fn devices_are_refused_before_reading() {
    let rules = ReadRules::within(&[PathBuf::from("/dev")]);
    let result = within_10s(move || rules.read(Path::new("/dev/zero")))
        .expect("reading /dev/zero must not run away");
    match result {
        Err(
            e @ Refusal::NotRegular {
                kind: "a device", ..
            },
        ) => {
            assert_eq!(e.to_string(), "/dev/zero is a device, not a regular file");
        }
        other => panic!("/dev/zero gave {other:?}"),
    }
}

#[cfg(unix)]
#[test]
fn named_pipes_are_refused_without_blocking() {
    let t = Temp::new("fifo");
    let pipe = t.0.join("pipe.src");
    mkfifo(&pipe);
    let rules = ReadRules::within(std::slice::from_ref(&t.0));
    let path = pipe.clone();
    let result = within_10s(move || rules.read(&path)).expect("a named pipe must not block");
    assert!(
        matches!(
            result,
            Err(Refusal::NotRegular {
                kind: "a named pipe (FIFO)",
                ..
            })
        ),
        "{result:?}"
    );
    // Opening without waiting: even past the checks, the open cannot block.
    let opened = within_10s(move || open_no_wait(&pipe).map(|_| ()));
    assert!(opened.is_some(), "open_no_wait blocked on a named pipe");
}

#[test]
fn the_size_limit_counts_bytes_read() {
    let t = Temp::new("size");
    let ten = t.file("ten.src", &[b'x'; 10]);
    let eleven = t.file("eleven.src", &[b'x'; 11]);
    let rules = ReadRules::within(std::slice::from_ref(&t.0)).with_max_bytes(10);
    assert_eq!(rules.read(&ten).unwrap().len(), 10);
    let refusal = rules.read(&eleven).unwrap_err();
    assert!(matches!(refusal, Refusal::TooBig { limit: 10, .. }));
    assert!(
        refusal
            .to_string()
            .ends_with("eleven.src is larger than 10 bytes, the limit for this kind of file")
    );
    // A sparse file far over the default limit is refused from its size, unread.
    let big = t.0.join("big.src");
    File::create(&big)
        .unwrap()
        .set_len(MAX_TEXT_FILE_BYTES + 1)
        .unwrap();
    assert!(matches!(
        ReadRules::within(std::slice::from_ref(&t.0)).read(&big),
        Err(Refusal::TooBig { .. })
    ));
}

#[test]
fn refusals_become_io_errors_that_keep_not_found() {
    let nf = Refusal::NotFound {
        path: PathBuf::from("x"),
    };
    assert_eq!(nf.into_io().kind(), io::ErrorKind::NotFound);
    let out = Refusal::Outside {
        path: PathBuf::from("/etc/passwd"),
        roots: "/p".into(),
    };
    let io = out.into_io();
    assert_eq!(io.kind(), io::ErrorKind::PermissionDenied);
    assert_eq!(
        io.to_string(),
        "/etc/passwd is outside the folders HitBench may read here (/p)"
    );
}

#[test]
fn normalize_resolves_dots_by_name() {
    assert_eq!(normalize(Path::new("a/./b/../c")), PathBuf::from("a/c"));
    assert_eq!(normalize(Path::new("../../x")), PathBuf::from("../../x"));
    assert_eq!(normalize(Path::new("a/../../x")), PathBuf::from("../x"));
    assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
    assert!(lexical_absolute(Path::new("x")).is_absolute());
}

#[cfg(unix)]
#[test]
fn the_walk_and_the_reader_refuse_a_link_in_the_same_words() {
    use std::os::unix::fs::symlink;
    let outside = Temp::new("same-outside");
    let secret = outside.file("secret.wav", b"secret");
    let t = Temp::new("same");
    symlink(&secret, t.0.join("leak.wav")).unwrap();
    // The folder as a user may give it: relative to the working folder.
    let up = std::env::current_dir().unwrap().components().count() - 1;
    let relative = PathBuf::from("../".repeat(up)).join(t.0.strip_prefix("/").unwrap());
    let walked = walk(&relative, &WalkOptions::default()).unwrap();
    let read = ReadRules::within(std::slice::from_ref(&relative))
        .read(&relative.join("leak.wav"))
        .unwrap_err();
    assert_eq!(walked.refused, std::slice::from_ref(&read));
    assert_eq!(
        read.to_string(),
        format!(
            "{} is a link leading outside {}",
            relative.join("leak.wav").display(),
            relative.display()
        )
    );
}

#[cfg(unix)]
#[test]
fn rules_remembering_folders_agree_with_the_file_system() {
    use std::os::unix::fs::symlink;
    let temp = Temp::new("memo");
    let data = temp.dir("data");
    let plain = temp.file("data/sounds/a.wav", b"a");
    temp.file("data/sounds/b.wav", b"b");
    // A folder reached through a link inside the data, a file that is a link, a link
    // leading out, one to nothing, and `..` in a path.
    symlink(data.join("sounds"), data.join("linked")).unwrap();
    symlink(&plain, data.join("alias.wav")).unwrap();
    let outside = temp.file("outside.wav", b"o");
    symlink(&outside, data.join("out.wav")).unwrap();
    symlink(data.join("none.wav"), data.join("dangling.wav")).unwrap();
    let plain_rules = ReadRules::within(std::slice::from_ref(&data));
    let memo_rules = plain_rules.clone().remembering_folders();
    assert_eq!(plain_rules, memo_rules);
    for name in [
        "sounds/a.wav",
        "sounds/b.wav",
        "linked/a.wav",
        "linked/b.wav",
        "alias.wav",
        "out.wav",
        "dangling.wav",
        "missing.wav",
        "sounds/../sounds/a.wav",
        "sounds",
        "linked",
    ] {
        // Twice: the second time from what the memo remembered.
        for _ in 0..2 {
            let path = data.join(name);
            assert_eq!(memo_rules.check(&path), plain_rules.check(&path), "{name}");
            assert_eq!(
                memo_rules.contains(&path),
                plain_rules.contains(&path),
                "{name}"
            );
            assert_eq!(
                memo_rules.canonicalize(&path).ok(),
                fs::canonicalize(&path).ok(),
                "{name}"
            );
        }
    }
}

#[test]
fn a_plain_absolute_path_is_its_own_lexical_absolute() {
    // The shortcut for paths with nothing to resolve gives what resolving gives.
    for path in [
        "/a/b/c.wav",
        "/",
        "/a//b",
        "/a/./b",
        "/a/../b",
        "/a/b/",
        "/a/.hidden/b",
        "/a/b..c/d",
        "/a/b./c",
        "/..",
        "relative/x",
        "",
    ] {
        let path = Path::new(path);
        let long_way = normalize(&std::path::absolute(path).unwrap_or_else(|_| path.into()));
        assert_eq!(lexical_absolute(path), long_way, "{}", path.display());
    }
}

#[test]
fn rules_knowing_what_is_at_a_path_do_not_look_again() {
    let temp = Temp::new("knowing");
    let seen_file = temp.file("sounds/a.wav", b"12345");
    let seen_folder = temp.dir("sounds/folder.wav");
    let unseen = temp.file("sounds/b.wav", b"123");
    let looked = |path: &Path| Seen::of(&fs::symlink_metadata(path).unwrap());
    let seen: SeenMap = [
        (SeenPath(Arc::from(seen_file.as_path())), looked(&seen_file)),
        (
            SeenPath(Arc::from(seen_folder.as_path())),
            looked(&seen_folder),
        ),
    ]
    .into_iter()
    .collect();
    let rules = ReadRules::within(std::slice::from_ref(&temp.0))
        .remembering_folders()
        .knowing(Arc::new(seen));
    // The rules know a path they were told of by that very copy of it.
    let shared = rules.shared_path(&seen_file).expect("a path seen is known");
    assert_eq!(*shared, *seen_file);
    assert!(rules.shared_path(&unseen).is_none());
    // What was seen is taken as it was: the file, gone since, still passes, with the
    // length it had; the folder is still no file.
    fs::remove_file(&seen_file).unwrap();
    let checked = rules.check(&seen_file).unwrap();
    assert_eq!(checked.len, 5);
    assert!(checked.canonical.ends_with("sounds/a.wav"));
    assert!(matches!(
        rules.check(&seen_folder),
        Err(Refusal::NotRegular { .. })
    ));
    // Anything else is looked at as always.
    assert_eq!(rules.check(&unseen).unwrap().len, 3);
    assert!(rules.check(&temp.0.join("sounds/c.wav")).is_err());
    // Rules that do not remember folders do not take it either: they always look.
    let plain = ReadRules::within(std::slice::from_ref(&temp.0)).knowing(Arc::default());
    assert!(plain.check(&seen_file).is_err());
}

#[cfg(unix)]
#[test]
fn a_checked_file_opens_without_a_second_look_but_not_through_a_link_put_there() {
    use std::io::Read;
    use std::os::unix::fs::symlink;
    let t = Temp::new("checked-open");
    let path = t.file("s.wav", b"sample");
    let rules = ReadRules::within(std::slice::from_ref(&t.0));
    let checked = rules.check(&path).unwrap();
    assert_eq!(checked.len, 6);
    let mut text = String::new();
    checked.open().unwrap().read_to_string(&mut text).unwrap();
    assert_eq!(text, "sample");
    // Swapped for a link after the check (to a file outside, say): the open refuses.
    let outside = Temp::new("checked-open-outside");
    let secret = outside.file("secret.wav", b"secret");
    fs::remove_file(&path).unwrap();
    symlink(&secret, &path).unwrap();
    assert!(checked.open().is_err());
}
