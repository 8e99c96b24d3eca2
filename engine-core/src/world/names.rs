//! Objects by name at the console: `sev vox greet @bob` is `sev vox greet @1` when the
//! lot's object 1 is "Bob Newbie". A name matches case-insensitively, in full (spaces
//! written as `_` or left out) or as the unique prefix of the name or of one of its
//! words; `@` and a number stays the object ID it is.

use crate::runtime::objects::WorldObject;

/// Why an `@name` names no object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// No object's name starts with it.
    #[error("no object on the lot is called `@{name}`{}", known(.on_lot))]
    NoSuchName {
        /// The name written.
        name: String,
        /// The lot's objects: `@id name`, ascending.
        on_lot: Vec<String>,
    },
    /// Several objects' names start with it.
    #[error("`@{name}` could be {}: write more of the name, or the ID", .matches.join(" or "))]
    Ambiguous {
        /// The name written.
        name: String,
        /// The objects it could be: `@id name`.
        matches: Vec<String>,
    },
}

fn known(on_lot: &[String]) -> String {
    if on_lot.is_empty() {
        " (the lot has no objects)".to_string()
    } else {
        format!(" (the lot has {})", on_lot.join(", "))
    }
}

/// A name folded for matching: lower case, no spaces or underscores.
fn folded(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The object `name` (without its `@`) names among `objects`.
pub fn find<'a>(name: &str, objects: &[&'a WorldObject]) -> Result<&'a WorldObject, NameError> {
    let wanted = folded(name);
    let label = |o: &WorldObject| format!("@{} {}", o.id, o.name);
    if let Some(exact) = objects.iter().find(|o| folded(&o.name) == wanted) {
        return Ok(exact);
    }
    let matches: Vec<&WorldObject> = objects
        .iter()
        .copied()
        .filter(|o| {
            !wanted.is_empty()
                && (folded(&o.name).starts_with(&wanted)
                    || o.name
                        .split_whitespace()
                        .any(|w| folded(w).starts_with(&wanted)))
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(NameError::NoSuchName {
            name: name.to_string(),
            on_lot: objects.iter().map(|o| label(o)).collect(),
        }),
        several => Err(NameError::Ambiguous {
            name: name.to_string(),
            matches: several.iter().map(|o| label(o)).collect(),
        }),
    }
}

/// `line` with every `@name` replaced by `@id` of the object it names (`@3` and words
/// after a comment mark are left as they are).
pub fn resolve<'a>(
    line: &str,
    objects: impl IntoIterator<Item = &'a WorldObject>,
) -> Result<String, NameError> {
    let (code, comment) = match line.find(['#', ';']) {
        Some(at) => line.split_at(at),
        None => (line, ""),
    };
    if !code.contains('@') {
        return Ok(line.to_string());
    }
    let objects: Vec<&WorldObject> = objects.into_iter().collect();
    let mut out = String::with_capacity(line.len());
    let mut rest = code;
    while let Some(at) = rest.find('@') {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let end = from.find(char::is_whitespace).unwrap_or(from.len());
        let (word, after) = from.split_at(end);
        let name = &word[1..];
        if name.is_empty() || name.parse::<i64>().is_ok() {
            out.push_str(word);
        } else {
            let object = find(name, &objects)?;
            out.push_str(&format!("@{}", object.id));
        }
        rest = after;
    }
    out.push_str(rest);
    out.push_str(comment);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::objects::ObjectKind;

    fn object(id: i32, name: &str) -> WorldObject {
        WorldObject::new(id, name, ObjectKind::Person)
    }

    #[test]
    fn names_become_ids_by_full_name_or_unique_prefix() {
        let lot = [
            object(1, "Bob Newbie"),
            object(2, "Betty Newbie"),
            object(9, "Baby Newbie"),
            object(4, "Living room TV"),
        ];
        assert_eq!(
            resolve("sev vox greet @bob", &lot).unwrap(),
            "sev vox greet @1"
        );
        assert_eq!(
            resolve("sev vox greet @BETTY", &lot).unwrap(),
            "sev vox greet @2"
        );
        assert_eq!(resolve("why @baby_newbie", &lot).unwrap(), "why @9");
        assert_eq!(
            resolve("sev tv on @tv # the TV", &lot).unwrap(),
            "sev tv on @4 # the TV"
        );
        assert_eq!(
            resolve("sev vox greet @3", &lot).unwrap(),
            "sev vox greet @3"
        );
        assert_eq!(
            resolve("sev vox greet @-1", &lot).unwrap(),
            "sev vox greet @-1"
        );
        let err = resolve("sev vox greet @b", &lot).unwrap_err();
        assert!(matches!(err, NameError::Ambiguous { .. }), "{err}");
        let err = resolve("sev vox greet @zed", &lot).unwrap_err().to_string();
        assert!(
            err.contains("@zed") && err.contains("@1 Bob Newbie"),
            "{err}"
        );
    }
}
