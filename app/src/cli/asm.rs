//! `hitbench asm`: assemble a MakeTrax source and write its five outputs.

use super::Io;
use super::args::{Args, usage};
use super::paths::relative_to;
use anyhow::Context as _;
use engine_core::toolchain::asm::{self, AsmOptions, DiskFiles};
use engine_core::toolchain::diag::Severity;
use engine_core::toolchain::fsrules;
use engine_core::toolchain::registers::Layout;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Runs `hitbench asm <source> [-o <dir>] [--layout ts1|tso] [-I|--include <dir>]... [--strict]`.
pub fn run(args: &mut Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let out_dir = args.value(&["-o", "--output"])?.map(PathBuf::from);
    let layout = match args.value(&["--layout"])? {
        Some(text) => Some(text.parse::<Layout>().map_err(usage)?),
        None => None,
    };
    let strict = args.flag(&["--strict"]);
    let include_dirs = args
        .values(&["-I", "--include"])?
        .into_iter()
        .map(PathBuf::from)
        .collect();
    let source = args
        .next_positional()
        .map(PathBuf::from)
        .ok_or_else(|| usage("asm needs a source file: hitbench asm <source> [-o <dir>]"))?;
    args.finish()?;

    let options = AsmOptions {
        layout,
        include_dirs,
        strict,
    };
    // Reads only inside the source's folder and the include folders.
    let files = DiskFiles::for_source(&source, &options);
    let assembly = asm::assemble(&source, &options, &files);
    for diagnostic in &assembly.diagnostics {
        writeln!(io.err, "{diagnostic}")?;
    }
    let errors = assembly
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = assembly.diagnostics.len() - errors;
    if errors > 0 {
        writeln!(
            io.err,
            "{}: {errors} error(s), {warnings} warning(s); nothing written",
            source.display()
        )?;
        return Ok(ExitCode::from(super::EXIT_INPUT_ERRORS));
    }

    let dir = out_dir.unwrap_or_else(|| source.parent().unwrap_or(Path::new("")).to_path_buf());
    let dir = if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let stem = source
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".to_string());

    // Source paths in .hdb and .sym are stored relative to the folder they are written
    // to, so the outputs can move together.
    let mut hdb = assembly.hdb.clone();
    let mut sym = assembly.sym.clone();
    let relative: Vec<String> = assembly
        .sources
        .iter()
        .map(|p| relative_to(p, &dir))
        .collect();
    hdb.files.clone_from(&relative);
    sym.files = relative;

    let outputs: [(&str, Vec<u8>); 5] = [
        ("hit", assembly.hit.bytes().to_vec()),
        ("hsm", assembly.hsm().to_text().into_bytes()),
        ("hot", assembly.hot().to_bytes()),
        ("hdb", hdb.to_text().into_bytes()),
        ("sym", sym.to_text().into_bytes()),
    ];
    // Every output checked before any is written: all five, or none.
    let mut inputs: Vec<&Path> = assembly.sources.iter().map(PathBuf::as_path).collect();
    inputs.push(&source);
    let paths = outputs
        .each_ref()
        .map(|(extension, _)| dir.join(format!("{stem}.{extension}")));
    for path in &paths {
        super::paths::check_output(path, &inputs)?;
    }
    for (path, (_, bytes)) in paths.iter().zip(&outputs) {
        fsrules::write_output(path, &inputs, bytes).map_err(super::paths::output_error)?;
    }
    let labels = assembly
        .symbols
        .iter()
        .filter(|s| s.kind == asm::SymbolKind::Label)
        .count();
    writeln!(
        io.out,
        "{}: {} bytes of code, {labels} label(s), layout {}, {warnings} warning(s) -> {}/{stem}.{{hit,hsm,hot,hdb,sym}}",
        source.display(),
        assembly.hit.code().len(),
        assembly.layout,
        dir.display(),
    )?;
    Ok(ExitCode::SUCCESS)
}
