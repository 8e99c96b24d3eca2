//! `world.ini`: the project's settings for the world around the sounds — how volume and
//! pan follow the camera (`[View]`), which directory feeds each station (`[Stations]`),
//! the music of each music mode (`[Music]`) and the ambience (`[Ambience]`), and which
//! lot the workbench opens (`[Lot]`).
//!
//! Every data directory may hold a `world.ini`; they are read in load order and a later
//! directory's key replaces an earlier one's (a plug-in folder can add a station or
//! retune a curve). The file is an INI document read with the lossless `.hot` reader, so
//! the workbench can change one value without touching any other byte. Each subsystem
//! reads its own section from [`WorldIni`]; every bad value is a diagnostic naming the
//! file and line, and the default is used instead.

use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::formats::hot::HotDocument;
use std::path::{Path, PathBuf};

/// The settings file's name in a data directory.
pub const FILE_NAME: &str = "world.ini";

/// One `key=value` of a section, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The key as written.
    pub key: String,
    /// The value, trimmed, without a trailing comment.
    pub value: String,
    /// The file it came from.
    pub file: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column of the value.
    pub column: u32,
    /// The data directory holding the file.
    pub dir: PathBuf,
}

impl Setting {
    /// An error of kind `code` about this value (its subject is the key).
    pub fn error(&self, code: DiagCode, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error(code, &self.file, self.line, self.column, message)
            .with_subject(self.key.clone())
    }

    /// A warning of kind `code` about this value (its subject is the key).
    pub fn warning(&self, code: DiagCode, message: impl Into<String>) -> Diagnostic {
        Diagnostic::warning(code, &self.file, self.line, self.column, message)
            .with_subject(self.key.clone())
    }

    /// A path written in the value, resolved against the data directory of the file
    /// (`\` and `/` both separate; an absolute path stays as it is).
    pub fn path(&self) -> PathBuf {
        let text = self.value.trim_matches('"').replace('\\', "/");
        self.dir.join(text)
    }

    /// The value as a number, or an error naming the key.
    pub fn number(&self) -> Result<f64, Diagnostic> {
        self.value
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| {
                self.error(
                    DiagCode::BadNumber,
                    format!("`{}` must be a number, not `{}`", self.key, self.value),
                )
            })
    }

    /// The value as a comma-separated list of numbers.
    pub fn numbers(&self) -> Result<Vec<f64>, Diagnostic> {
        self.value
            .split(',')
            .map(|part| {
                part.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| {
                        self.error(
                            DiagCode::BadNumber,
                            format!(
                                "`{}` must be numbers separated by commas; `{}` is not a number",
                                self.key,
                                part.trim()
                            ),
                        )
                    })
            })
            .collect()
    }
}

/// Every `world.ini` of a project, merged: per section, the effective entries in order
/// (a later directory's key replaces an earlier one's).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorldIni {
    /// Files read, in load order.
    pub files: Vec<PathBuf>,
    sections: Vec<(String, Vec<Setting>)>,
}

impl WorldIni {
    /// Reads `world.ini` from each directory that has one. A file that cannot be read is
    /// an error naming it; the others still count.
    pub fn load(dirs: &[PathBuf]) -> (Self, Vec<Diagnostic>) {
        let mut ini = WorldIni::default();
        let mut diagnostics = Vec::new();
        for dir in dirs {
            let path = dir.join(FILE_NAME);
            if std::fs::symlink_metadata(&path).is_err() {
                continue;
            }
            // The data folder's rule: a regular file inside it, of a sane size.
            match crate::toolchain::fsrules::ReadRules::within(std::slice::from_ref(dir))
                .read(&path)
            {
                Ok(bytes) => ini.add(&path, dir, &bytes),
                Err(refusal) => diagnostics.push(Diagnostic::error(
                    refusal.code(),
                    &path,
                    0,
                    0,
                    format!(
                        "cannot read the world settings: it {}; the defaults are used",
                        refusal.reason()
                    ),
                )),
            }
        }
        (ini, diagnostics)
    }

    /// Adds one file's entries (later entries replace earlier ones with the same key).
    pub fn add(&mut self, file: &Path, dir: &Path, bytes: &[u8]) {
        let document = HotDocument::parse(bytes);
        self.files.push(file.to_path_buf());
        for section in document.sections() {
            for entry in document.entries(&section) {
                let setting = Setting {
                    key: entry.key,
                    value: entry.value,
                    file: file.to_path_buf(),
                    line: entry.line,
                    column: entry.value_column,
                    dir: dir.to_path_buf(),
                };
                self.put(&section, setting);
            }
        }
    }

    fn put(&mut self, section: &str, setting: Setting) {
        let index = match self
            .sections
            .iter()
            .position(|(name, _)| name.eq_ignore_ascii_case(section))
        {
            Some(index) => index,
            None => {
                self.sections.push((section.to_string(), Vec::new()));
                self.sections.len() - 1
            }
        };
        let Some((_, entries)) = self.sections.get_mut(index) else {
            return;
        };
        match entries
            .iter_mut()
            .find(|e| e.key.eq_ignore_ascii_case(&setting.key))
        {
            Some(existing) => *existing = setting,
            None => entries.push(setting),
        }
    }

    /// The effective entries of a section (case-insensitive), in the order first written.
    pub fn section(&self, name: &str) -> &[Setting] {
        self.sections
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map_or(&[], |(_, entries)| entries.as_slice())
    }

    /// One effective entry.
    pub fn get(&self, section: &str, key: &str) -> Option<&Setting> {
        self.section(section)
            .iter()
            .find(|e| e.key.eq_ignore_ascii_case(key))
    }

    /// Names of every section present.
    pub fn section_names(&self) -> impl Iterator<Item = &str> {
        self.sections.iter().map(|(n, _)| n.as_str())
    }
}

/// Reads the keys of a section into a settings value: `apply` handles each known key
/// (returning `false` for an unknown one, which becomes a warning listing `known`).
pub fn read_section(
    ini: &WorldIni,
    section: &str,
    known: &[&str],
    diagnostics: &mut Vec<Diagnostic>,
    mut apply: impl FnMut(&Setting, &mut Vec<Diagnostic>) -> bool,
) {
    for setting in ini.section(section) {
        if !apply(setting, diagnostics) {
            let message = format!(
                "unknown key `{}` in [{section}] (known: {})",
                setting.key,
                known.join(", ")
            );
            let d = setting.warning(DiagCode::UnknownKey, message);
            diagnostics.push(d.with_section(section));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_files_replace_keys_and_keep_lines() {
        let mut ini = WorldIni::default();
        ini.add(
            Path::new("/a/world.ini"),
            Path::new("/a"),
            b"[View]\nFadeDistance=100\nZoomGain=1,0.5\n",
        );
        ini.add(
            Path::new("/b/world.ini"),
            Path::new("/b"),
            b"; plug-in\n[view]\nfadedistance = 300\n",
        );
        let fade = ini.get("VIEW", "FadeDistance").unwrap();
        assert_eq!(fade.value, "300");
        assert_eq!(fade.line, 3);
        assert_eq!(fade.file, Path::new("/b/world.ini"));
        assert_eq!(fade.number().unwrap(), 300.0);
        let zoom = ini.get("View", "ZoomGain").unwrap();
        assert_eq!(zoom.numbers().unwrap(), vec![1.0, 0.5]);
        assert_eq!(ini.section("View").len(), 2);
    }

    #[test]
    fn bad_values_name_file_line_and_key() {
        let mut ini = WorldIni::default();
        ini.add(
            Path::new("p/world.ini"),
            Path::new("p"),
            b"[View]\nFadeDistance=far\nZoomGain=1,x\nStations=stations\\tv\n",
        );
        let e = ini
            .get("View", "FadeDistance")
            .unwrap()
            .number()
            .unwrap_err();
        assert_eq!((e.line, e.column), (2, 14));
        assert!(e.message.contains("FadeDistance"), "{}", e.message);
        let e = ini.get("View", "ZoomGain").unwrap().numbers().unwrap_err();
        assert!(e.message.contains("`x`"), "{}", e.message);
        let path = ini.get("View", "Stations").unwrap().path();
        assert_eq!(path, Path::new("p/stations/tv"));
        let mut diagnostics = Vec::new();
        read_section(&ini, "View", &["FadeDistance"], &mut diagnostics, |s, _| {
            s.key.eq_ignore_ascii_case("FadeDistance")
        });
        assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
        assert!(diagnostics[0].message.contains("unknown key `ZoomGain`"));
    }
}
