//! The project-wide names — code labels and named numbers from every unit and table, in
//! load order, later definitions winning — and how a name in a table becomes a number.

use super::Loader;
use crate::toolchain::formats::hot::IdRef;
use crate::toolchain::formats::text::is_identifier;
use crate::toolchain::project::defs::{CodeRef, NameDef, NameValue, Origin};
use crate::toolchain::project::error::{NameProblem, ResolveError};
use crate::toolchain::project::tables::{self, RawTables};
use crate::toolchain::project::unit::CodeUnit;
use crate::toolchain::project::{DefinitionKind, Override, Project};
use crate::toolchain::symbols;
use std::collections::HashMap;
use std::sync::Arc;

/// The names collected so far, by lower-cased name.
struct Names<'o> {
    labels: HashMap<Arc<str>, NameDef>,
    values: HashMap<Arc<str>, NameDef>,
    /// Where a name defined again with another value is recorded.
    overrides: &'o mut Vec<Override>,
}

impl Names<'_> {
    /// Defines `name`; a later definition with another value wins and is recorded.
    /// A name already in lower case (a patch's, most often) is its own key: one string
    /// for both.
    fn define(&mut self, name: Arc<str>, value: NameValue, origin: Origin) {
        let key = if name.bytes().any(|b| b.is_ascii_uppercase()) {
            Arc::from(name.to_ascii_lowercase())
        } else {
            Arc::clone(&name)
        };
        let map = match value {
            NameValue::Code(_) => &mut self.labels,
            NameValue::Value(_) => &mut self.values,
        };
        let new = NameDef {
            name,
            value,
            origin,
        };
        let Some(old) = map.insert(Arc::clone(&key), new) else {
            return;
        };
        if let Some(new) = map.get(&key)
            && old.value != new.value
        {
            self.overrides.push(Override {
                kind: DefinitionKind::Name,
                what: format!("name {}", new.name),
                old: old.origin,
                new: new.origin.clone(),
            });
        }
    }

    /// The labels and constants of unit number `index`, and its `.hsm` names when it
    /// has no `.sym`.
    fn add_unit(&mut self, index: usize, unit: &CodeUnit) {
        let origin_of = |address: u32| {
            unit.locate(address)
                .map_or_else(|| Origin::new(unit.path(), 0), |(f, l)| Origin::new(f, l))
        };
        for (name, address) in &unit.labels {
            let at = CodeRef {
                unit: index,
                address: *address,
            };
            self.define(
                Arc::from(name.as_str()),
                NameValue::Code(at),
                origin_of(*address),
            );
        }
        for (name, value) in &unit.constants {
            let origin = Origin::new(unit.path(), 0);
            self.define(Arc::from(name.as_str()), NameValue::Value(*value), origin);
        }
        if unit.sym.is_none()
            && let Some(hsm) = &unit.hsm
        {
            for symbol in &hsm.symbols {
                if symbols::lookup(unit.layout, &symbol.name).is_none() {
                    let origin = Origin::new(unit.path().with_extension("hsm"), symbol.line);
                    self.define(
                        Arc::from(symbol.name.as_str()),
                        NameValue::Value(symbol.value),
                        origin,
                    );
                }
            }
        }
    }

    /// The equates of a document, and the names of its patches (a patch name stands
    /// for its ID in hit lists).
    fn add_tables(&mut self, raw: &RawTables) {
        for equate in &raw.tables.equates {
            let origin = raw.source.origin(equate.line);
            self.define(
                Arc::from(equate.name.as_str()),
                NameValue::Value(equate.value),
                origin,
            );
        }
        for patch in &raw.tables.patches {
            if let IdRef::Number(id) = patch.id
                && !patch.name.is_empty()
                && is_identifier(&patch.name)
            {
                let origin = raw.source.origin(patch.line);
                self.define(Arc::clone(&patch.name), NameValue::Value(id), origin);
            }
        }
    }
}

impl Loader<'_> {
    /// Labels and named values from every unit and table, in load order: later
    /// definitions win.
    pub(super) fn collect_names(
        &self,
        overrides: &mut Vec<Override>,
    ) -> (HashMap<Arc<str>, NameDef>, HashMap<Arc<str>, NameDef>) {
        let mut names = Names {
            labels: HashMap::new(),
            values: HashMap::new(),
            overrides,
        };
        let dirs = self
            .units
            .iter()
            .map(|u| u.dir)
            .chain(self.tables.iter().map(|t| t.raw.dir))
            .max();
        for dir in 0..=dirs.unwrap_or(0) {
            for (index, unit) in self.units.iter().enumerate().filter(|(_, u)| u.dir == dir) {
                names.add_unit(index, unit);
            }
            for loaded in self.tables.iter().filter(|t| t.raw.dir == dir) {
                names.add_tables(loaded.raw);
            }
        }
        (names.labels, names.values)
    }
}

/// Looks a name up as a number: the document's equates, then the project's names,
/// then the built-in constants.
pub(super) fn number_of(
    name: &str,
    raw: Option<&RawTables>,
    project: &Project,
) -> Result<i64, NameProblem> {
    if let Some(value) = raw.and_then(|r| tables::equate(&r.tables, name)) {
        return Ok(value);
    }
    let key = name.to_ascii_lowercase();
    if let Some(NameValue::Value(v)) = project.values.get(key.as_str()).map(|n| n.value) {
        return Ok(v);
    }
    if let Some(value) = symbols::constant(name) {
        return Ok(value);
    }
    if project.labels.contains_key(key.as_str()) {
        return Err(NameProblem::CodeLabel);
    }
    Err(NameProblem::Undefined)
}

/// `value` as a 32-bit ID of the field `what`.
pub(super) fn to_u32(value: i64, what: &'static str) -> Result<u32, ResolveError> {
    u32::try_from(value).map_err(|_| ResolveError::OutOfRange { what, value })
}
