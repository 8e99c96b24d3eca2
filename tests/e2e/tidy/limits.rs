//! The resource-limits table of ARCHITECTURE.md against the code.

use hitbench_tests::workspace;

/// The rows of ARCHITECTURE.md's "Resource limits" table: (constant cell, value cell).
fn limits_table() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(workspace().join("ARCHITECTURE.md")).unwrap();
    let section = text
        .split("\n## Resource limits\n")
        .nth(1)
        .expect("ARCHITECTURE.md has a `## Resource limits` section");
    let section = section.split("\n## ").next().unwrap_or(section);
    section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| limit ") && !l.starts_with("|---"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            assert_eq!(cells.len(), 4, "a row has 4 cells: {l}");
            (cells[2].to_string(), cells[1].to_string())
        })
        .collect()
}

/// The whole numbers written in a cell (`1,048,576` is one number).
fn numbers(cell: &str) -> Vec<u64> {
    cell.replace(',', "")
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect()
}

#[test]
fn limits_table_matches_the_code() {
    use engine_core::runtime::EngineConfig;
    use engine_core::sound::audio::decode::{
        DecodeLimits, MAX_SAMPLE_BYTES, MAX_SAMPLE_RATE, MIN_SAMPLE_RATE,
    };
    let engine = EngineConfig::default();
    let code: Vec<(&str, u64)> = vec![
        (
            "EngineConfig::fuel_per_tick",
            u64::from(engine.fuel_per_tick),
        ),
        (
            "EngineConfig::chain_fuel_per_tick",
            u64::from(engine.chain_fuel_per_tick),
        ),
        (
            "runtime::engine::START_FUEL",
            u64::from(engine_core::runtime::engine::START_FUEL),
        ),
        ("EngineConfig::tick_fuel", engine.tick_fuel),
        (
            "runtime::vm::MAX_CALL_DEPTH",
            engine_core::runtime::vm::MAX_CALL_DEPTH as u64,
        ),
        (
            "runtime::vm::MAX_STACK_DEPTH",
            engine_core::runtime::vm::MAX_STACK_DEPTH as u64,
        ),
        (
            "runtime::MAX_LIST_DEPTH",
            engine_core::runtime::MAX_LIST_DEPTH as u64,
        ),
        (
            "formats::hitlist::MAX_RANGE_LEN",
            engine_core::toolchain::formats::hitlist::MAX_RANGE_LEN,
        ),
        (
            "formats::hitlist::MAX_LIST_IDS",
            engine_core::toolchain::formats::hitlist::MAX_LIST_IDS,
        ),
        (
            "project::MAX_HIT_LIST_IDS",
            engine_core::toolchain::project::MAX_HIT_LIST_IDS,
        ),
        (
            "runtime::vm::MAX_LOCAL_LIST_IDS",
            engine_core::runtime::vm::MAX_LOCAL_LIST_IDS as u64,
        ),
        (
            "runtime::vm::LIST_ENTRIES_PER_FUEL",
            engine_core::runtime::vm::LIST_ENTRIES_PER_FUEL as u64,
        ),
        (
            "asm::MAX_INCLUDE_DEPTH",
            engine_core::toolchain::asm::MAX_INCLUDE_DEPTH as u64,
        ),
        (
            "asm::MAX_EXPANDED_LINES",
            engine_core::toolchain::asm::MAX_EXPANDED_LINES as u64,
        ),
        (
            "fsrules::MAX_TEXT_FILE_BYTES",
            engine_core::toolchain::fsrules::MAX_TEXT_FILE_BYTES,
        ),
        (
            "fsrules::MAX_WALK_DEPTH",
            engine_core::toolchain::fsrules::MAX_WALK_DEPTH as u64,
        ),
        (
            "cache::MAX_RESOURCE_BYTES",
            engine_core::sound::cache::MAX_RESOURCE_BYTES,
        ),
        ("audio::decode::MAX_SAMPLE_BYTES", MAX_SAMPLE_BYTES as u64),
        (
            "DecodeLimits::max_frames",
            DecodeLimits::default().max_frames,
        ),
        ("audio::decode::MIN_SAMPLE_RATE", u64::from(MIN_SAMPLE_RATE)),
        ("MAX_SAMPLE_RATE", u64::from(MAX_SAMPLE_RATE)),
        (
            "server::STREAM_BYTES",
            engine_core::sound::server::STREAM_BYTES,
        ),
        (
            "server::MUSIC_STREAM_FILE_BYTES",
            engine_core::sound::server::MUSIC_STREAM_FILE_BYTES,
        ),
        (
            "cache::DEFAULT_BUDGET",
            engine_core::sound::cache::DEFAULT_BUDGET as u64,
        ),
        (
            "cache_settings::DEFAULT_CACHE_BUDGET",
            (engine_core::world::cache_settings::DEFAULT_CACHE_BUDGET >> 20) as u64,
        ),
        (
            "cache::MAX_NAME_LEN",
            engine_core::sound::cache::MAX_NAME_LEN as u64,
        ),
        (
            "command::MAX_SCRIPT_SECONDS",
            engine_core::host::command::MAX_SCRIPT_SECONDS as u64,
        ),
        (
            "command::MAX_SCRIPT_COMMANDS",
            engine_core::host::command::MAX_SCRIPT_COMMANDS as u64,
        ),
        (
            "command::MAX_SCRIPT_PROBLEMS",
            engine_core::host::command::MAX_SCRIPT_PROBLEMS as u64,
        ),
        (
            "repeat::MAX_REPEAT",
            u64::from(engine_core::host::command::repeat::MAX_REPEAT),
        ),
        (
            "qa::MAX_EXPECTATIONS",
            engine_core::host::qa::MAX_EXPECTATIONS as u64,
        ),
        (
            "compare::MAX_COMPARE_SECONDS",
            engine_core::tools::compare::MAX_COMPARE_SECONDS,
        ),
        (
            "output::WAV_MAX_FRAMES",
            engine_core::sound::output::WAV_MAX_FRAMES,
        ),
        (
            "offline::VOICE_LIMITS",
            *engine_core::host::offline::VOICE_LIMITS.end() as u64,
        ),
        (
            "offline::SAMPLE_RATES",
            u64::from(*engine_core::host::offline::SAMPLE_RATES.start()),
        ),
        ("EngineConfig::trace_capacity", engine.trace_capacity as u64),
        (
            "check::CYCLE_WALK_LIMIT",
            engine_core::tools::check::CYCLE_WALK_LIMIT as u64,
        ),
        (
            "check::MAX_CYCLE_SEARCHES",
            engine_core::tools::check::MAX_CYCLE_SEARCHES as u64,
        ),
    ];
    let table = limits_table();
    for (constant, value) in &code {
        let row = table
            .iter()
            .find(|(c, _)| c.contains(&format!("{constant}`")))
            .unwrap_or_else(|| panic!("no row names `{constant}` in the limits table"));
        assert!(
            numbers(&row.1).contains(value),
            "the limits table says `{}` for `{constant}`, but the code has {value}",
            row.1
        );
    }
    for (constants, _) in &table {
        assert!(
            code.iter()
                .any(|(c, _)| constants.contains(&format!("{c}`"))),
            "the limits table row for {constants} is not checked against the code"
        );
    }
}
