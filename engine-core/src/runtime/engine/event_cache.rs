//! The events triggered so far, by the name they were triggered with: a trigger finds
//! its event with one hash of the name instead of a search of the project's ordered
//! table (a string comparison at every level). Emptied whenever the project is
//! replaced.

use crate::runtime::hash::FastMap;
use crate::toolchain::project::{EventDef, Project};
use std::sync::Arc;

/// Names kept at most (a caller triggering ever new spellings cannot grow it for ever).
const LIMIT: usize = 1 << 14;

/// Events by the name they were triggered with.
#[derive(Debug, Default)]
pub(super) struct EventCache {
    by_name: FastMap<Box<str>, Arc<EventDef>>,
}

impl EventCache {
    /// The event `name` triggers in `project` (as [`Project::event`] finds it).
    pub(super) fn get(&mut self, project: &Project, name: &str) -> Option<Arc<EventDef>> {
        if let Some(event) = self.by_name.get(name) {
            return Some(Arc::clone(event));
        }
        let event = Arc::new(project.event(name)?.clone());
        if self.by_name.len() >= LIMIT {
            self.by_name.clear();
        }
        self.by_name.insert(name.into(), Arc::clone(&event));
        Some(event)
    }

    /// Forgets every event (the project changed).
    pub(super) fn clear(&mut self) {
        self.by_name.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_the_project_finds_and_forgets_it_with_the_project() {
        let mut project = Project::default();
        let event = |name: &str, track_id| EventDef {
            name: Arc::from(name),
            type_number: 1,
            event_type: crate::toolchain::project::EventType::Play,
            track_id,
            implicit: false,
            origin: crate::toolchain::project::Origin::default(),
        };
        project.events.insert("door".into(), event("door", 7));
        let mut cache = EventCache::default();
        for name in ["door", "DOOR", "door"] {
            assert_eq!(cache.get(&project, name).map(|e| e.track_id), Some(7));
        }
        assert!(cache.get(&project, "window").is_none());
        // Still the old event until the cache is told the project changed.
        project.events.insert("door".into(), event("door", 9));
        assert_eq!(cache.get(&project, "door").map(|e| e.track_id), Some(7));
        cache.clear();
        assert_eq!(cache.get(&project, "door").map(|e| e.track_id), Some(9));
    }
}
