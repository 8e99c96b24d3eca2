//! The engine's trace records: who is traced, and the record helpers every part of the
//! engine writes through (the event, track, object and voice a record is about, and where
//! in the source an op is).

use super::*;

impl Engine {
    /// True if records of `kind` are kept (so callers can skip building messages).
    pub(super) fn tracing(&self, kind: TraceKind) -> bool {
        self.trace.switches.allows(kind)
    }

    pub(super) fn record(&mut self, kind: TraceKind, message: String) {
        let record = TraceRecord {
            time: self.clock.now(),
            kind,
            event: None,
            track: None,
            object: None,
            voice: None,
            note: None,
            message,
        };
        self.trace.push(record);
    }

    pub(super) fn record_for(
        &mut self,
        kind: TraceKind,
        th: &Thread,
        note: Option<NoteId>,
        message: String,
    ) {
        if !self.trace.switches.allows(kind) {
            return;
        }
        let record = TraceRecord {
            time: th.time.max(self.clock.now()),
            kind,
            event: Some(th.event.clone()),
            track: Some(th.track_name.clone()),
            object: th.source,
            voice: Some(th.voice),
            note,
            message,
        };
        self.trace.push(record);
    }

    pub(super) fn record_thread(&mut self, kind: TraceKind, index: usize, message: String) {
        let Some(th) = self.threads.get(index).and_then(Option::as_ref) else {
            return;
        };
        let record = TraceRecord {
            time: self.clock.now(),
            kind,
            event: Some(th.event.clone()),
            track: Some(th.track_name.clone()),
            object: th.source,
            voice: Some(th.voice),
            note: None,
            message,
        };
        self.trace.push(record);
    }

    pub(super) fn record_event(
        &mut self,
        kind: TraceKind,
        event: &EventDef,
        track: Option<&TrackDef>,
        object: Option<ObjectId>,
        voice: Option<usize>,
        message: String,
    ) {
        let record = TraceRecord {
            time: self.clock.now(),
            kind,
            event: Some(Arc::from(event.name.as_str())),
            track: track.map(|t| Arc::from(t.name.as_str())),
            object,
            voice,
            note: None,
            message,
        };
        self.trace.push(record);
    }

    /// "file:line" of an op, or its unit and address.
    pub(super) fn where_is(&self, op: u32) -> String {
        let Some(op) = self.program.ops.get(op as usize) else {
            return "an address outside the code".to_string();
        };
        let unit = usize::from(op.unit);
        let at = crate::toolchain::project::CodeRef {
            unit,
            address: op.addr,
        };
        let place = match self.project.locate(at) {
            Some(origin) => origin.to_string(),
            None => self
                .project
                .units
                .get(unit)
                .map_or_else(String::new, |u| u.path().display().to_string()),
        };
        format!("address 0x{:04x} ({place})", op.addr)
    }
}
