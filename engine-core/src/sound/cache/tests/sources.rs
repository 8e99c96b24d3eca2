//! Sources: directories and zip packs (the last added wins), bad sources, escapes and
//! symlinks, names (case, backslashes, arbitrary input), reloads.

use super::*;

#[test]
fn directory_and_zip_sources_last_added_wins() {
    let dir = fixture(
        "sources-dir",
        &[("sfx/boom.wav", 3), ("sfx/dir-only.wav", 3)],
    );
    let packs = TempDir::new("sources-zip");
    let pack = packs.0.join("level1.zip");
    write_zip(
        &pack,
        &[("SFX/Boom.wav", b"zip-boom"), ("music/theme.ogg", b"theme")],
        true,
    );
    let cache = ResourceCache::with_budget(1000);
    cache.add_directory(&dir.0).unwrap();
    assert_eq!(
        cache.get("sfx/boom.wav").unwrap().bytes().unwrap(),
        content("sfx/boom.wav", 3)
    );
    let info = cache.add_zip(&pack).unwrap();
    assert_eq!((info.kind, info.resources), (SourceKind::Zip, 2));
    // The pack was added last: it wins, and the cached copy from the directory is gone.
    let boom = cache.get("sfx/boom.wav").unwrap();
    assert_eq!(boom.bytes().unwrap(), b"zip-boom");
    assert_eq!(boom.source, pack);
    assert_eq!(cache.get("sfx/dir-only.wav").unwrap().size, 3);
    assert_eq!(
        cache.get("Music/Theme.OGG").unwrap().bytes().unwrap(),
        b"theme"
    );
    assert_eq!(
        cache.names("*"),
        ["sfx/boom.wav", "sfx/dir-only.wav", "music/theme.ogg"]
    );
    assert_eq!(cache.names("sfx/*"), ["sfx/boom.wav", "sfx/dir-only.wav"]);
    assert_eq!(cache.sources().len(), 2);
    // New data for a name is a compulsory miss again.
    assert_eq!(cache.stats().compulsory_misses, 4);
}

#[test]
fn bad_sources_are_clean_errors_naming_the_path() {
    let cache = ResourceCache::with_budget(1000);
    let dir = TempDir::new("bad-sources");
    let error = cache.add_directory(dir.0.join("missing")).unwrap_err();
    assert!(error.to_string().contains("missing"), "{error}");
    let junk = dir.file("junk.zip", b"PK\x03\x04 not really");
    let error = cache.add_zip(&junk).unwrap_err();
    assert!(matches!(error, CacheError::Zip { .. }));
    assert!(error.to_string().contains("junk.zip"), "{error}");
    assert!(cache.sources().is_empty());
}

#[test]
fn escape_attempts_are_refused() {
    let dir = fixture("escape", &[("ok.wav", 3)]);
    let packs = TempDir::new("escape-zip");
    let pack = packs.0.join("evil.zip");
    write_zip(
        &pack,
        &[("../evil.wav", b"evil"), ("fine.wav", b"fine")],
        false,
    );
    let cache = cache(&dir, 1000);
    cache.add_zip(&pack).unwrap();
    for name in ["../x", "/etc/passwd", r"C:\x", "sfx/../../x", "../evil.wav"] {
        match cache.get(name) {
            Err(CacheError::Escape { .. }) => {}
            other => panic!("{name:?} gave {other:?}"),
        }
        assert!(matches!(
            cache.try_get(name),
            Lookup::Failed(CacheError::Escape { .. })
        ));
        assert!(matches!(
            cache.request(name),
            Err(CacheError::Escape { .. })
        ));
    }
    // The zip entry is never served, under any name.
    assert!(matches!(
        cache.get("evil.wav"),
        Err(CacheError::NotFound { .. })
    ));
    assert_eq!(cache.names("*evil*"), Vec::<String>::new());
    assert_eq!(cache.get("fine.wav").unwrap().bytes().unwrap(), b"fine");
    // Refused names leave no trace in the statistics.
    assert_eq!(cache.resource_stats().len(), 2);
}

#[cfg(unix)]
#[test]
fn symlink_to_a_file_outside_the_directory_is_refused() {
    let outside = TempDir::new("escape-outside");
    let secret = outside.file("passwd", b"root:x:0:0");
    let dir = fixture("escape-link", &[("ok.wav", 3)]);
    std::os::unix::fs::symlink(&secret, dir.0.join("leak.wav")).unwrap();
    let cache = cache(&dir, 1000);
    let error = cache.get("leak.wav").unwrap_err();
    assert!(matches!(error, CacheError::Escape { .. }), "{error}");
    assert!(error.to_string().contains("leak.wav"), "{error}");
    assert!(!cache.names("*").contains(&"leak.wav".to_owned()));
}

#[test]
fn names_are_case_insensitive_and_take_backslashes() {
    let dir = fixture("case", &[("Sfx/Boom.WAV", 4)]);
    let cache = cache(&dir, 1000);
    let first = cache.get(r"SFX\boom.wav").unwrap();
    assert_eq!(first.name, "sfx/boom.wav");
    let second = cache.get("./sfx/BOOM.wav").unwrap();
    assert!(Arc::ptr_eq(&first, &second));
    let third = cache.get("sfx/boom.wav").unwrap();
    assert!(Arc::ptr_eq(&first, &third));
    let stats = cache.stats();
    assert_eq!((stats.loads, stats.hits), (1, 2));
    assert_eq!(cache.names("SFX/*.wav"), ["sfx/boom.wav"]);
}

#[test]
fn reload_reads_fresh_data_and_keeps_old_handles_valid() {
    let dir = fixture("reload", &[("a.txt", 3)]);
    let cache = cache(&dir, 1000);
    let old = cache.get("a.txt").unwrap();
    dir.file("a.txt", b"new data");
    let new = cache.reload("a.txt").unwrap();
    assert_eq!(new.bytes().unwrap(), b"new data");
    assert_eq!(old.bytes().unwrap(), content("a.txt", 3));
    let stats = cache.stats();
    assert_eq!(
        (stats.pinned_bytes, stats.bytes_held, stats.loads),
        (3, 8, 2)
    );
    assert!(Arc::ptr_eq(&cache.get("a.txt").unwrap(), &new));
    // Evicted, the new data is read again; the old copy someone holds is never revived.
    drop(new);
    assert!(cache.evict("a.txt"));
    assert_eq!(cache.get("a.txt").unwrap().bytes().unwrap(), b"new data");
    assert_eq!(cache.stats().pinned_bytes, 3);
}

#[test]
fn arbitrary_names_never_panic_and_never_escape() {
    let dir = fixture("proptest", &[("ok.wav", 2), ("sfx/boom.wav", 3)]);
    let outside = TempDir::new("proptest-outside");
    outside.file("secret.wav", b"secret");
    let cache = cache(&dir, 1000);
    let known = ["ok.wav", "sfx/boom.wav"];
    let names = prop_oneof![
        any::<String>(),
        "[a-zA-Z./\\\\:]{0,16}",
        "(\\.\\./|\\.\\.\\\\|/|[A-Z]:|sfx/|ok|\\.wav|secret|boom){0,6}",
    ];
    let mut runner = TestRunner::new(Config {
        cases: 512,
        ..Config::default()
    });
    runner
        .run(&names, |name| {
            match cache.get(&name) {
                Ok(handle) => {
                    prop_assert!(known.contains(&handle.name.as_str()));
                    prop_assert!(handle.bytes() != Some(b"secret".as_slice()));
                }
                Err(
                    CacheError::Escape { .. }
                    | CacheError::InvalidName { .. }
                    | CacheError::NotFound { .. },
                ) => {}
                Err(other) => prop_assert!(false, "{name:?} gave {other}"),
            }
            let _ = cache.try_get(&name);
            let _ = cache.names(&name);
            Ok(())
        })
        .unwrap();
}
