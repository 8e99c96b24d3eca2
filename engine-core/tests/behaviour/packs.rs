//! Zip packs: a `*.zip` at the top of a data folder is mounted as a pack. Its sound
//! files resolve `[Patch]` paths like loose files (no missing-sample warning), play
//! through the cache, and are checked by `check`'s bad-sample rule; a loose file of the
//! same name wins over the pack; a damaged pack is an error naming the file, and the
//! rest of the project still loads.

use crate::support::{TempProject, constant_wav, looping_tracks};
use engine_core::host::capture::Header;
use engine_core::host::command::parse_script;
use engine_core::host::offline::{RenderOptions, render};
use engine_core::runtime::trace::{SampleEvent, TraceEvent, TraceKind};
use engine_core::toolchain::diag::DiagCode;
use engine_core::toolchain::project::Project;
use std::io::Write;
use std::path::Path;
use zip::write::SimpleFileOptions;

/// A WAV of `seconds` at `level`, as bytes.
fn wav(dir: &Path, name: &str, seconds: f64, level: f32) -> Vec<u8> {
    let path = dir.join(name);
    constant_wav(&path, seconds, level);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    bytes
}

fn write_zip(path: &Path, entries: &[(&str, &[u8])]) {
    let mut writer = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, bytes) in entries {
        writer
            .start_file(*name, SimpleFileOptions::default())
            .unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap();
}

/// Track `t0` plays patch 1, `s.wav`; the loose file is removed and `s.wav` (at
/// `level`) is put in `extra.zip`.
fn packed_project(tag: &str, level: f32) -> TempProject {
    let p = looping_tracks(tag, &[40], 1024, "");
    std::fs::remove_file(p.path().join("s.wav")).unwrap();
    let bytes = wav(p.path(), "tmp.wav", 0.5, level);
    write_zip(&p.path().join("extra.zip"), &[("s.wav", &bytes)]);
    p
}

/// The peak of a 1 s render of `ui t0`, and its sample records.
fn render_t0(p: &TempProject) -> (f32, Vec<SampleEvent>) {
    let project = Project::load(p.path());
    let (script, problems) = parse_script("0 ui t0\n", Path::new("s.txt"));
    assert!(problems.is_empty());
    let out = p.path().join("out.wav");
    let options = RenderOptions {
        duration: Some(1.0),
        ..RenderOptions::default()
    };
    let report = render(project, &script, &out, options).unwrap();
    let samples = report
        .trace
        .into_iter()
        .filter_map(|r| match r.what {
            TraceEvent::Sample(what) => Some(what),
            _ => None,
        })
        .collect();
    (report.peak, samples)
}

#[test]
fn a_patch_plays_its_sample_from_a_zip_pack() {
    let p = packed_project("pack-plays", 0.25);
    let project = Project::load(p.path());
    assert!(
        project.diagnostics.is_empty(),
        "no missing sample: {:#?}",
        project.diagnostics
    );
    let patch = project.patches.get(&1).unwrap();
    assert_eq!(patch.resource.as_deref(), Some("s.wav"));
    assert_eq!(
        patch.pack.as_deref(),
        Some(p.path().join("extra.zip").as_path())
    );
    // `check` decodes it from the pack: nothing to report.
    let found = engine_core::tools::check::check(&project);
    assert!(
        found.iter().all(|d| d.code != DiagCode::BadSample),
        "{found:#?}"
    );
    let (peak, samples) = render_t0(&p);
    // A centred note plays at −3 dB in each channel.
    let centre = std::f32::consts::FRAC_1_SQRT_2;
    assert!(
        (peak - 0.25 * centre).abs() < 0.01,
        "the packed sample plays: peak {peak}"
    );
    assert!(
        samples
            .iter()
            .all(|s| !matches!(s, SampleEvent::LoadFailed { .. })),
        "{samples:#?}"
    );
}

#[test]
fn packed_samples_play_within_the_budget_world_ini_sets() {
    let p = packed_project("pack-budget", 0.25);
    p.file("world.ini", "[Cache]\nBudgetMB = 1\n");
    let project = Project::load(p.path());
    let header = Header::for_render(&project, &RenderOptions::default());
    assert_eq!(header.cache_budget, 1 << 20, "world.ini's budget");
    let (peak, samples) = render_t0(&p);
    assert!(
        peak > 0.1,
        "the packed sample plays within 1 MiB: peak {peak}"
    );
    assert!(
        samples.iter().all(|s| !s.dropped()),
        "nothing dropped: {samples:#?}"
    );
}

#[test]
fn a_loose_file_wins_over_the_pack() {
    let p = packed_project("pack-loose", 0.25);
    constant_wav(&p.path().join("s.wav"), 0.5, 0.5);
    let project = Project::load(p.path());
    let patch = project.patches.get(&1).unwrap();
    assert!(patch.pack.is_none(), "the loose file is found first");
    let (peak, _) = render_t0(&p);
    let centre = std::f32::consts::FRAC_1_SQRT_2;
    assert!(
        (peak - 0.5 * centre).abs() < 0.01,
        "the loose file plays: peak {peak}"
    );
}

#[test]
fn a_damaged_pack_or_entry_is_reported_and_the_rest_loads() {
    // Not a zip at all: an error naming the pack; the patch's sample is then missing.
    let p = packed_project("pack-bad", 0.25);
    std::fs::write(p.path().join("extra.zip"), b"this is not a zip").unwrap();
    let project = Project::load(p.path());
    let pack = project
        .diagnostics
        .iter()
        .find(|d| d.code == DiagCode::UnreadableFile)
        .unwrap_or_else(|| panic!("{:#?}", project.diagnostics));
    assert!(pack.file.ends_with("extra.zip"), "{pack}");
    assert!(pack.message.contains("not a zip pack"), "{pack}");
    assert!(
        project
            .diagnostics
            .iter()
            .any(|d| d.code == DiagCode::MissingSample),
        "{:#?}",
        project.diagnostics
    );
    assert!(
        project.tracks.values().any(|t| &*t.name == "t0"),
        "the rest loads"
    );

    // A zip whose entry is not audio: `check` names the patch and says why.
    let p = packed_project("pack-entry", 0.25);
    write_zip(&p.path().join("extra.zip"), &[("s.wav", b"RIFF garbage")]);
    let project = Project::load(p.path());
    let found = engine_core::tools::check::check(&project);
    let bad = found
        .iter()
        .find(|d| d.code == DiagCode::BadSample)
        .unwrap_or_else(|| panic!("{found:#?}"));
    assert!(bad.message.contains("patch 1"), "{bad}");
}

/// A mono 8-bit 8000 Hz WAV of `frames` frames of silence, as bytes.
fn wav8(frames: u32) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(44 + frames as usize);
    bytes.extend_from_slice(b"RIFF");
    bytes.extend_from_slice(&(36 + frames).to_le_bytes());
    bytes.extend_from_slice(b"WAVEfmt ");
    bytes.extend_from_slice(&16u32.to_le_bytes());
    bytes.extend_from_slice(&1u16.to_le_bytes());
    bytes.extend_from_slice(&1u16.to_le_bytes());
    bytes.extend_from_slice(&8_000u32.to_le_bytes());
    bytes.extend_from_slice(&8_000u32.to_le_bytes());
    bytes.extend_from_slice(&1u16.to_le_bytes());
    bytes.extend_from_slice(&8u16.to_le_bytes());
    bytes.extend_from_slice(b"data");
    bytes.extend_from_slice(&frames.to_le_bytes());
    bytes.resize(44 + frames as usize, 0x80);
    bytes
}

/// `extra.zip` holding `s.wav` as `bytes`, stored (not compressed) or deflated.
fn zip_of(bytes: &[u8], method: zip::CompressionMethod) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut writer = zip::ZipWriter::new(&mut out);
    let options = SimpleFileOptions::default()
        .compression_method(method)
        .large_file(bytes.len() > u32::MAX as usize / 2);
    writer.start_file("s.wav", options).unwrap();
    writer.write_all(bytes).unwrap();
    writer.finish().unwrap();
    out.into_inner()
}

/// Sets a flag or size field of both the local and the central header of the one entry
/// in `zip`: `local` and `central` are the field's offsets from each header's signature.
fn patch_headers(zip: &mut [u8], local: usize, central: usize, value: &[u8]) {
    let find = |signature: &[u8]| zip.windows(4).position(|w| w == signature).unwrap();
    let (l, c) = (find(b"PK\x03\x04"), find(b"PK\x01\x02"));
    zip[l + local..l + local + value.len()].copy_from_slice(value);
    zip[c + central..c + central + value.len()].copy_from_slice(value);
}

/// The packed samples that cannot play, each with what `check` and a render must say
/// of it.
fn unplayable_packs() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    // Longer than a sample decoded whole may be (ten minutes at 48 kHz): it would have to
    // stream, and a pack's samples are not streamed.
    let long = zip_of(&wav8(28_800_000 + 8_000), zip::CompressionMethod::Stored);
    // Not audio at all.
    let damaged = zip_of(
        b"RIFF\x10\0\0\0WAVEgarbage!",
        zip::CompressionMethod::Stored,
    );
    // Marked encrypted (general purpose flag bit 0).
    let mut encrypted = zip_of(&wav8(8_000), zip::CompressionMethod::Stored);
    patch_headers(&mut encrypted, 6, 8, &1u16.to_le_bytes());
    // Inflates to more than its headers declare.
    let mut inflating = zip_of(&wav8(80_000), zip::CompressionMethod::Deflated);
    patch_headers(&mut inflating, 22, 24, &1_000u32.to_le_bytes());
    vec![
        ("too long", long, "streamed"),
        ("damaged", damaged, "WAV"),
        ("encrypted", encrypted, "encrypted"),
        ("inflating", inflating, "declared"),
    ]
}

/// The errors a 1 s render of `ui t0` traced, as text.
fn render_errors(p: &TempProject) -> Vec<String> {
    let project = Project::load(p.path());
    let (script, _) = parse_script("0 ui t0\n", Path::new("s.txt"));
    let options = RenderOptions {
        duration: Some(1.0),
        ..RenderOptions::default()
    };
    let report = render(project, &script, &p.path().join("out.wav"), options).unwrap();
    report
        .trace
        .iter()
        .filter(|r| r.kind == TraceKind::Error)
        .map(|r| format!("{:?}", r.what))
        .collect()
}

/// A packed sample that cannot play — too long to decode whole (a pack's samples are not
/// streamed), damaged, encrypted, or inflating past its declared size — is found by
/// `check`, which names the patch and why, and a render names its pack and why.
#[test]
fn a_packed_sample_that_cannot_play_is_found_by_check_and_named_by_render() {
    for (kind, zip, says) in unplayable_packs() {
        let p = packed_project(&format!("pack-unplayable-{}", kind.replace(' ', "-")), 0.25);
        std::fs::write(p.path().join("extra.zip"), &zip).unwrap();
        let project = Project::load(p.path());
        let found = engine_core::tools::check::check(&project);
        let bad = found
            .iter()
            .find(|d| d.code == DiagCode::BadSample)
            .unwrap_or_else(|| panic!("{kind}: check found nothing: {found:#?}"));
        assert!(bad.message.contains("patch 1"), "{kind}: {bad}");
        assert!(bad.message.contains(says), "{kind}: {bad}");
        let said = render_errors(&p);
        assert!(
            said.iter()
                .any(|s| s.contains("extra.zip") && s.contains(says)),
            "{kind}: the render names the pack and why: {said:#?}"
        );
        assert!(
            said.iter().all(|s| !s.contains("Not a directory")),
            "{kind}: {said:#?}"
        );
    }
}
