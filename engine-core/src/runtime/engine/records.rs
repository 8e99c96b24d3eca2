//! The engine's trace records: who is traced, and the record helpers every part of the
//! engine writes through (the event, track, object and voice a record is about, and where
//! in the source an op is).

use super::*;

impl Engine {
    /// True if records of `kind` are kept (so callers can skip building messages).
    pub(super) fn tracing(&self, kind: TraceKind) -> bool {
        self.trace.switches.allows(kind)
    }

    pub(super) fn record(&mut self, kind: TraceKind, what: TraceEvent) {
        let record = TraceRecord {
            time: self.clock.now(),
            kind,
            event: None,
            track: None,
            object: None,
            voice: None,
            note: None,
            what,
        };
        self.trace.push(record);
    }

    pub(super) fn record_for(
        &mut self,
        kind: TraceKind,
        th: &Thread,
        note: Option<NoteId>,
        what: TraceEvent,
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
            what,
        };
        self.trace.push(record);
    }

    pub(super) fn record_thread(&mut self, kind: TraceKind, index: usize, what: TraceEvent) {
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
            what,
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
        what: TraceEvent,
    ) {
        let record = TraceRecord {
            time: self.clock.now(),
            kind,
            event: Some(event.name.clone()),
            track: track.map(|t| t.name.clone()),
            object,
            voice,
            note: None,
            what,
        };
        self.trace.push(record);
    }

    /// Where an op is: its address and source line (or unit file); `None` for an op
    /// outside the code.
    pub(super) fn where_is(&self, op: u32) -> Option<CodePlace> {
        let op = self.program.ops.get(op as usize)?;
        let unit = usize::from(op.unit);
        let at = crate::toolchain::project::CodeRef {
            unit,
            address: op.addr,
        };
        let origin = self.project.locate(at);
        let unit = match origin {
            Some(_) => None,
            None => self.project.units.get(unit).map(|u| u.path().to_path_buf()),
        };
        Some(CodePlace {
            address: op.addr,
            origin,
            unit,
        })
    }
}
