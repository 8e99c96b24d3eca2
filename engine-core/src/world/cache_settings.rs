//! `world.ini` `[Cache]`: how much decoded sound the resource cache may hold
//! (`BudgetMB`), and from which track priority a sound whose sample misses the cache
//! waits for it instead of being dropped late (`WaitPriority`). `--cache-mb` on the
//! command line overrides the budget.

use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::world::settings::{WorldIni, read_section};
use std::path::PathBuf;

/// The budget when neither `--cache-mb` nor `world.ini` sets one.
pub const DEFAULT_CACHE_BUDGET: usize = 256 * 1024 * 1024;

/// The largest budget `BudgetMB` and `--cache-mb` take, in MiB (64 GiB).
pub const MAX_CACHE_MB: f64 = 65_536.0;

const KEYS: [&str; 2] = ["BudgetMB", "WaitPriority"];

/// `world.ini` `[Cache]`; `None` where the file says nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheSettings {
    /// `BudgetMB`: the cache's budget, in bytes.
    pub budget: Option<usize>,
    /// `WaitPriority`: notes of this priority or more wait for their sample (0–128;
    /// 128 means none waits).
    pub wait_priority: Option<i32>,
}

impl CacheSettings {
    /// Reads `[Cache]` of `ini`; each bad value is a diagnostic naming its file and line
    /// (and is left out).
    pub fn from_ini(ini: &WorldIni) -> (Self, Vec<Diagnostic>) {
        let mut settings = Self::default();
        let mut diagnostics = Vec::new();
        read_section(ini, "Cache", &KEYS, &mut diagnostics, |s, d| {
            let key = s.key.to_ascii_lowercase();
            let range = match key.as_str() {
                "budgetmb" => format!(
                    "more than 0 and at most {MAX_CACHE_MB} MiB; the default, {} MiB, is used",
                    DEFAULT_CACHE_BUDGET >> 20
                ),
                "waitpriority" => "a priority from 0 to 128; it is left out".to_owned(),
                _ => return false,
            };
            let out_of_range = |v: f64| {
                s.error(
                    DiagCode::NumberOutOfRange,
                    format!("`{}` = {v} is out of range: {range}", s.key),
                )
            };
            match s.number() {
                Ok(v) if key == "budgetmb" => match budget_bytes(v) {
                    Some(bytes) => settings.budget = Some(bytes),
                    None => d.push(out_of_range(v)),
                },
                Ok(v) if !(0.0..=128.0).contains(&v) => d.push(out_of_range(v)),
                Ok(v) if v.fract() == 0.0 => settings.wait_priority = Some(v as i32),
                Ok(v) => d.push(s.error(
                    DiagCode::BadNumber,
                    format!("`{}` must be a whole number, not {v}", s.key),
                )),
                Err(e) => d.push(e),
            }
            true
        });
        (settings, diagnostics)
    }

    /// Reads `[Cache]` from the `world.ini` files of `dirs` (later ones win).
    pub fn load(dirs: &[PathBuf]) -> (Self, Vec<Diagnostic>) {
        let (ini, _) = WorldIni::load(dirs);
        Self::from_ini(&ini)
    }

    /// The budget to use: `cli` (from `--cache-mb`) over `BudgetMB` over the default.
    pub fn budget_or(&self, cli: Option<usize>) -> usize {
        cli.or(self.budget).unwrap_or(DEFAULT_CACHE_BUDGET)
    }
}

/// `mb` mebibytes in bytes.
pub fn megabytes(mb: f64) -> usize {
    (mb * 1024.0 * 1024.0).round() as usize
}

/// A budget of `mb` MiB in bytes, if it is one `BudgetMB` and `--cache-mb` take: more
/// than 0 (at least one byte once rounded; `-0` is 0) and at most [`MAX_CACHE_MB`].
pub fn budget_bytes(mb: f64) -> Option<usize> {
    (mb > 0.0 && mb <= MAX_CACHE_MB)
        .then(|| megabytes(mb))
        .filter(|&bytes| bytes > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn read(text: &str) -> (CacheSettings, Vec<String>) {
        let mut ini = WorldIni::default();
        ini.add(Path::new("p/world.ini"), Path::new("p"), text.as_bytes());
        let (settings, diagnostics) = CacheSettings::from_ini(&ini);
        (
            settings,
            diagnostics.iter().map(ToString::to_string).collect(),
        )
    }

    #[test]
    fn budget_and_wait_priority_are_read() {
        let (s, d) = read("[Cache]\nBudgetMB = 2.5\nWaitPriority = 100\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s.budget, Some(2_621_440));
        assert_eq!(s.wait_priority, Some(100));
        assert_eq!(s.budget_or(None), 2_621_440);
        assert_eq!(s.budget_or(Some(1 << 20)), 1 << 20, "the command line wins");
        assert_eq!(
            CacheSettings::default().budget_or(None),
            DEFAULT_CACHE_BUDGET
        );
    }

    /// A budget of nothing (or less than a byte) is reported at its line and the default
    /// is used, as for any other value out of range.
    #[test]
    fn a_budget_of_nothing_is_reported_and_the_default_used() {
        for value in ["0", "-0", "0.0", "0.0000001", "-1", "1e-300", "65537"] {
            let (s, d) = read(&format!("[Cache]\nBudgetMB = {value}\n"));
            assert_eq!(s.budget, None, "BudgetMB = {value}");
            assert_eq!(
                s.budget_or(None),
                DEFAULT_CACHE_BUDGET,
                "BudgetMB = {value}"
            );
            assert_eq!(d.len(), 1, "BudgetMB = {value}: {d:?}");
            assert!(d[0].starts_with("p/world.ini:2:"), "{}", d[0]);
            assert!(d[0].contains("out of range"), "{}", d[0]);
        }
        for (mb, bytes) in [("1", 1 << 20), ("65536", 65_536usize << 20)] {
            let (s, d) = read(&format!("[Cache]\nBudgetMB = {mb}\n"));
            assert!(d.is_empty(), "{d:?}");
            assert_eq!(s.budget, Some(bytes));
        }
        assert_eq!(budget_bytes(0.0000001), None);
        assert_eq!(budget_bytes(-0.0), None);
        assert_eq!(budget_bytes(1.0), Some(1 << 20));
    }

    #[test]
    fn bad_values_name_the_line_and_are_left_out() {
        let (s, d) = read("[Cache]\nBudgetMB = lots\nWaitPriority = 200\nSize = 3\n");
        assert_eq!(s, CacheSettings::default());
        assert_eq!(d.len(), 3, "{d:#?}");
        assert!(d[0].starts_with("p/world.ini:2:"), "{}", d[0]);
        assert!(d[1].contains("out of range"), "{}", d[1]);
        assert!(d[2].contains("unknown key `Size` in [Cache]"), "{}", d[2]);
    }
}
