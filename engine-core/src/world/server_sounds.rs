//! `world.ini` `[ServerSounds]`: the sound server's own sounds (the sound server design's
//! "Sound identification" and "Sample selection"), defined in project data instead of
//! code. Each key names a sound:
//!
//! ```ini
//! [ServerSounds]
//! MaxRange = 40                          ; tiles: no sound is heard farther (default 1000)
//! Select = select_bob                    ; what `select <object…>` plays
//! yes = sounds/vox/yes_1.wav, sounds/vox/yes_2.wav, range 30   ; a group: one at random
//! hello = sounds/vox/hello.wav           ; a simple sound (the global range)
//! select_bob = two yes, hello            ; a selection sound: the two-groups rule
//! ```
//!
//! A sound of several files is a **group** (a random one each time); `range <tiles>`
//! gives the distance at which it falls silent (volume falls linearly from full at the
//! view point; capped by `MaxRange`). `two <first>, <second>` is a **selection sound**:
//! the first group at random three times, then the second group in order, then back —
//! while the same objects are selected; any other selection starts the cycle again.
//! Requests from an object that is still playing one of these sounds are dropped
//! (**noise reduction** by origin). Every problem names the file and line; what is broken
//! is left out.

use crate::sound::server::bank::{SoundBank, SoundDef};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::project::resource_name;
use crate::world::settings::{Setting, WorldIni};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// One sound as `[ServerSounds]` defines it.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerSoundDef {
    /// Files (resource names), one at random.
    Files(Vec<Arc<str>>),
    /// A selection sound over two other sounds (by name).
    TwoGroups(String, String),
}

/// `world.ini` `[ServerSounds]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerSounds {
    /// The sounds by name (lower case), with their range in tiles.
    pub sounds: BTreeMap<String, (ServerSoundDef, Option<f32>)>,
    /// `MaxRange`: no sound is heard farther, in tiles.
    pub max_range: Option<f32>,
    /// `Select`: the sound `select <object…>` plays.
    pub select: Option<String>,
}

impl ServerSounds {
    /// Reads `[ServerSounds]` of `ini` against the data directories `dirs`.
    pub fn from_ini(ini: &WorldIni, dirs: &[PathBuf]) -> (Self, Vec<Diagnostic>) {
        let mut out = Self::default();
        let mut diagnostics = Vec::new();
        let mut lines: BTreeMap<String, Setting> = BTreeMap::new();
        for s in ini.section("ServerSounds") {
            let key = s.key.to_ascii_lowercase();
            match key.as_str() {
                "maxrange" => match s.number() {
                    Ok(v) if v > 0.0 => out.max_range = Some(v as f32),
                    Ok(v) => diagnostics.push(s.error(
                        DiagCode::NumberOutOfRange,
                        format!("`MaxRange` = {v} must be more than 0 tiles"),
                    )),
                    Err(e) => diagnostics.push(e),
                },
                "select" => out.select = Some(s.value.trim().to_ascii_lowercase()),
                _ => match sound(s, dirs) {
                    Ok(def) => {
                        out.sounds.insert(key.clone(), def);
                        lines.insert(key, s.clone());
                    }
                    Err(d) => diagnostics.push(d),
                },
            }
        }
        // Selection sounds name sounds defined here (in any order).
        let names: Vec<String> = out.sounds.keys().cloned().collect();
        out.sounds.retain(|name, (def, _)| {
            let ServerSoundDef::TwoGroups(first, second) = def else {
                return true;
            };
            let missing: Vec<&String> = [&*first, &*second]
                .into_iter()
                .filter(|n| {
                    !names.contains(n)
                        || matches!(
                            lines
                                .get(*n)
                                .map(|s| s.value.trim_start().starts_with("two ")),
                            Some(true)
                        )
                })
                .collect();
            if missing.is_empty() {
                return true;
            }
            if let Some(s) = lines.get(name) {
                diagnostics.push(s.error(
                    DiagCode::DanglingReference,
                    format!(
                        "`{}`: {} {} a sound of [ServerSounds] with files (a selection \
                         sound takes two sounds defined by their files)",
                        s.key,
                        missing
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(" and "),
                        if missing.len() == 1 { "is not" } else { "are not" }
                    ),
                ));
            }
            false
        });
        if let Some(select) = &out.select
            && !out.sounds.contains_key(select)
        {
            if let Some(s) = ini
                .section("ServerSounds")
                .iter()
                .find(|s| s.key.eq_ignore_ascii_case("select"))
            {
                diagnostics.push(s.error(
                    DiagCode::DanglingReference,
                    format!("`Select` = {select}: no such sound in [ServerSounds]"),
                ));
            }
            out.select = None;
        }
        (out, diagnostics)
    }

    /// Registers every sound in `bank` (groups and simple sounds first, then selection
    /// sounds), replacing what a bank of the same names held.
    pub fn install(&self, bank: &mut SoundBank) {
        for (name, (def, range)) in &self.sounds {
            if let ServerSoundDef::Files(files) = def {
                let def = match files.as_slice() {
                    [one] => SoundDef::Simple(Arc::clone(one)),
                    many => SoundDef::Group(many.to_vec()),
                };
                bank.register(name, def, *range);
            }
        }
        for (name, (def, range)) in &self.sounds {
            if let ServerSoundDef::TwoGroups(first, second) = def
                && let (Some(a), Some(b)) = (bank.id(first), bank.id(second))
            {
                bank.register(name, SoundDef::TwoGroups(a, b), *range);
            }
        }
    }

    /// The names, sorted (for completion and `world`).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.sounds.keys().map(String::as_str)
    }
}

/// One sound's line: `two <a>, <b>`, or files with an optional `range <tiles>`.
fn sound(s: &Setting, dirs: &[PathBuf]) -> Result<(ServerSoundDef, Option<f32>), Diagnostic> {
    let parts: Vec<&str> = s
        .value
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if let Some(first) = parts.first().and_then(|p| p.strip_prefix("two ")) {
        let [_, second] = parts.as_slice() else {
            return Err(s.error(
                DiagCode::BadSyntax,
                format!(
                    "`{}`: a selection sound is `two <first sound>, <second sound>`",
                    s.key
                ),
            ));
        };
        return Ok((
            ServerSoundDef::TwoGroups(
                first.trim().to_ascii_lowercase(),
                second.to_ascii_lowercase(),
            ),
            None,
        ));
    }
    let mut range = None;
    let mut files = Vec::new();
    for part in parts {
        if let Some(tiles) = part.strip_prefix("range ") {
            match tiles.trim().parse::<f32>() {
                Ok(v) if v > 0.0 && v.is_finite() => range = Some(v),
                _ => {
                    return Err(s.error(
                        DiagCode::BadNumber,
                        format!(
                            "`{}`: `{part}`: a range is a number of tiles above 0",
                            s.key
                        ),
                    ));
                }
            }
            continue;
        }
        let path = s.dir.join(part.trim_matches('"').replace('\\', "/"));
        if !path.is_file() {
            return Err(s.error(
                DiagCode::FileNotFound,
                format!("`{}`: {} does not exist", s.key, path.display()),
            ));
        }
        let Some(name) = resource_name(&path, dirs) else {
            return Err(s.error(
                DiagCode::SampleOutsideData,
                format!(
                    "`{}`: {} is outside the project's data directories",
                    s.key,
                    path.display()
                ),
            ));
        };
        files.push(Arc::from(name.as_str()));
    }
    if files.is_empty() {
        return Err(s.error(
            DiagCode::EmptyField,
            format!(
                "`{}` names no file: `<name> = <file>[, <file>…][, range <tiles>]` or `two <a>, <b>`",
                s.key
            ),
        ));
    }
    Ok((ServerSoundDef::Files(files), range))
}

/// The origin a selection of objects asks as: the object itself for one, a mix of the
/// IDs for several, so the same selection continues its cycle. A selection is a set:
/// `select 1 2`, `select 2 1` and `select 2 1 2` are one origin.
pub fn selection_origin(objects: &[i32]) -> i64 {
    let mut set = objects.to_vec();
    set.sort_unstable();
    set.dedup();
    match set.as_slice() {
        [one] => i64::from(*one),
        many => many.iter().fold(0x005E_1EC7_i64, |h, id| {
            h.wrapping_mul(1_000_003).wrapping_add(i64::from(*id))
        }),
    }
}
