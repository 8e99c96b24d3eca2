//! Tuning on the running engine (the Properties panel's live edits, the `tune` command):
//! a track's, patch's or event mapping's field takes a new value in the engine's copy of
//! the project, so the next start uses it, and the playing copies of a track follow where
//! that makes sense — volume (their notes' gain moves at once), priority (Box-X judges
//! them by it from now on) and duck priority (ducking is worked out again). A new option
//! group applies to the notes a track starts from then on: a sounding note stays on the
//! bus it started on.

use super::*;
use crate::toolchain::project::properties::{Property, PropertyTarget};

impl Engine {
    /// Gives `property` of `target` the value `value`; returns how many playing threads
    /// follow it.
    ///
    /// # Errors
    /// A sentence when the project has no such target, the property is not one of its
    /// fields or takes effect only when saved, or the value is out of range; nothing
    /// changes then.
    pub fn tune(
        &mut self,
        target: &PropertyTarget,
        property: Property,
        value: i64,
    ) -> Result<usize, String> {
        let mut project = Project::clone(&self.project);
        project.tune(target, property, value)?;
        self.project = Arc::new(project);
        self.events.clear();
        let PropertyTarget::Track(id) = *target else {
            return Ok(0);
        };
        let Ok(register_value) = i32::try_from(value) else {
            return Ok(0);
        };
        let now = self.clock.now();
        let mut followed = Vec::new();
        for (index, slot) in self.threads.iter_mut().enumerate() {
            let Some(th) = slot.as_mut().filter(|th| th.track == id) else {
                continue;
            };
            let register = match property {
                Property::Volume => th.attrs.vol,
                Property::Priority => th.attrs.priority,
                Property::DuckPriority => th.attrs.duckpri,
                Property::Group => {
                    th.group = ControlGroup::from_number(value);
                    th.attrs.group
                }
                _ => continue,
            };
            if register != 0xFF {
                th.set_reg(register, register_value);
            }
            followed.push(index);
        }
        match property {
            Property::Volume => {
                for &index in &followed {
                    self.send_levels(index, now);
                }
            }
            Property::DuckPriority => self.update_ducking(),
            Property::Priority => {
                for &index in &followed {
                    self.sync_priority(index);
                }
            }
            _ => {}
        }
        Ok(followed.len())
    }
}
