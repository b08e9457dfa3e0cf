"""The `xiaoting` command: run the service, talk to it, and inspect it over SSH.

Subcommands: run, ask, tool, status, inject, trace, doctor, models, library, web, mcp,
demo. Every one takes ``--config PATH`` (default: $XIAOTING_CONFIG, else
/etc/xiaoting/config.toml, else the clone's development defaults) and ``--debug``. Exit codes: 0 success, 1 failure, 2 usage or
configuration error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import sys
from pathlib import Path

from device import config as config_mod
from device import logs

_LOGGER = logging.getLogger(__name__)
REPO_ROOT = Path(__file__).resolve().parent.parent


def resolve_config(path: str | None, *, language: str | None = None) -> config_mod.Config:
    """Load the config named on the command line or found in the usual places.

    Raises ConfigError when a named file is missing or invalid.
    """
    path = path or os.environ.get("XIAOTING_CONFIG")
    if path:
        cfg = config_mod.load(path)
    elif config_mod.DEFAULT_CONFIG_PATH.exists():
        # An installed box: its config, or a clear error (e.g. not readable without sudo).
        cfg = config_mod.load(config_mod.DEFAULT_CONFIG_PATH)
    else:
        cfg = config_mod.dev_config(REPO_ROOT)
    if language:
        import dataclasses

        cfg = config_mod.validate(dataclasses.replace(cfg, language=language))
    return cfg


def _print_json(data: object) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


# ---------------------------------------------------------------- subcommands


def cmd_run(args: argparse.Namespace, cfg: config_mod.Config) -> int:
    """Start the assistant: models, push-to-talk, audio, agent, player, control socket."""
    import dataclasses

    from device import runtime
    from device.lock import AlreadyRunning

    if args.keyboard:
        cfg = dataclasses.replace(cfg, button=dataclasses.replace(cfg.button, keyboard=True))
    try:
        return runtime.main(cfg)
    except AlreadyRunning as err:
        print(f"xiaoting run: {err}", file=sys.stderr)
        return 1


def cmd_ask(args: argparse.Namespace, cfg: config_mod.Config) -> int:
    """One text turn: on the running service if its control socket answers, else in-process."""
    from device import commands

    return asyncio.run(
        commands.ask(
            cfg, " ".join(args.text), local=args.local, wait=args.wait, language=args.language
        )
    )


def cmd_tool(args: argparse.Namespace, cfg: config_mod.Config) -> int:
    """Call one tool directly with JSON arguments (for debugging over SSH)."""
    from device import commands

    if args.list:
        return asyncio.run(commands.list_tools(cfg))
    if not args.name:
        print("xiaoting tool: name a tool, or --list to see them", file=sys.stderr)
        return 2
    try:
        arguments = json.loads(args.arguments or "{}")
    except json.JSONDecodeError as err:
        print(f"xiaoting tool: arguments are not valid JSON: {err}", file=sys.stderr)
        return 2
    if not isinstance(arguments, dict):
        print("xiaoting tool: arguments must be a JSON object", file=sys.stderr)
        return 2
    return asyncio.run(
        commands.call_tool(cfg, args.name, arguments, wait=args.wait, as_json=args.json)
    )


def cmd_status(args: argparse.Namespace, cfg: config_mod.Config) -> int:
    """Show the running service's state through its control socket."""
    from device import commands

    return asyncio.run(commands.status(cfg, as_json=args.json))


def cmd_inject(args: argparse.Namespace, cfg: config_mod.Config) -> int:
    """Inject a human correction (an extra Observation) into the current or next turn."""
    from device import commands

    return asyncio.run(commands.inject(cfg, " ".join(args.text)))


def cmd_trace(args: argparse.Namespace, cfg: config_mod.Config) -> int:
    """Print the last turns' Thought/Action/Observation steps with timings."""
    from agent import trace

    path = cfg.path("state_dir")
    turns = trace.read_last(path, args.n)
    if not turns:
        print(f"no turns recorded yet in {path}")
        return 0
    if args.json:
        _print_json(turns)
    else:
        print(trace.format_turns(turns))
    return 0


def cmd_doctor(args: argparse.Namespace, cfg: config_mod.Config) -> int:
    """Check config, models, audio devices, GPIO, disk and network; one line each."""
    from device import doctor

    return asyncio.run(doctor.run(cfg, full=args.full))


SMALL_LLM = "qwen2.5-coder-0.5b-instruct-q4_k_m"
LARGE_LLM = "qwen2.5-1.5b-instruct-q4_k_m"
LARGE_MIN_TPS = 5.0
"""The 1.5B is chosen when it would decode at least this many tokens/s here (a play step
of about 15 decode steps in 3 s)."""


def pick_llm(
    decode_tps: float, measured_bytes: int, large_bytes: int, threshold: float = LARGE_MIN_TPS
) -> tuple[str, float]:
    """(the device profile's LLM for this machine, the 1.5B's estimated decode tokens/s).

    Decoding is bound by memory bandwidth, so the rate scales with the model file's size:
    the 1.5B's rate is estimated from the one measured, and chosen at `threshold`."""
    estimate = decode_tps * measured_bytes / max(1, large_bytes)
    return (LARGE_LLM if estimate >= threshold else SMALL_LLM), estimate


_LLM_MODEL_LINE = re.compile(r'^(\s*model\s*=\s*)"([^"]*)"(.*)$')


def set_config_llm(path: Path, choice: str) -> str:
    """Set ``llm.model`` in the TOML file `path` to `choice`, keeping every other line
    (comments included); returns what was done, one sentence. Only a value naming one of
    the device profile's two LLMs is replaced (another model is the owner's choice)."""
    import tomllib

    text = path.read_text(encoding="utf-8")
    current = tomllib.loads(text).get("llm", {}).get("model")
    if current == choice:
        return f"{path}: llm.model is already {choice}"
    if current not in (None, SMALL_LLM, LARGE_LLM):
        return (
            f"{path}: llm.model is {current} (set by hand): kept; the measured choice is {choice}"
        )
    lines = text.splitlines(keepends=True)
    section = ""
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("[") and not stripped.startswith("[["):
            section = stripped.strip("[] \n")
            continue
        match = _LLM_MODEL_LINE.match(line.rstrip("\n"))
        if section == "llm" and match:
            ending = "\n" if line.endswith("\n") else ""
            lines[i] = f'{match.group(1)}"{choice}"{match.group(3)}{ending}'
            break
    else:
        if "llm" not in tomllib.loads(text):
            lines.append(f'\n[llm]\nmodel = "{choice}"\n')
        else:
            at = next(i for i, ln in enumerate(lines) if ln.strip() == "[llm]")
            lines.insert(at + 1, f'model = "{choice}"\n')
    temp = path.with_name(path.name + ".tmp")
    temp.write_text("".join(lines), encoding="utf-8")
    os.chmod(temp, path.stat().st_mode & 0o7777)
    try:
        os.chown(temp, path.stat().st_uid, path.stat().st_gid)
    except PermissionError:
        pass
    os.replace(temp, path)
    tomllib.loads(path.read_text(encoding="utf-8"))  # still valid TOML
    return f"{path}: llm.model set to {choice} (was {current or 'the default'})"


def models_probe(args: argparse.Namespace, cfg: config_mod.Config, manifest, models_dir) -> int:
    """Measure llama.cpp's decode rate here and say which LLM the device profile should use;
    with ``--write-config FILE``, set it there. Without an LLM file, or when llama.cpp cannot
    run it, it says so and changes nothing (exit status 1)."""
    import asyncio
    import json

    from agent.errors import ModelError
    from agent.local import LocalModel

    names = [i if i.endswith(".gguf") else f"{i}.gguf" for i in args.ids]
    names += [f"{cfg.llm.model}.gguf", f"{LARGE_LLM}.gguf", f"{SMALL_LLM}.gguf"]
    path = next((models_dir / n for n in names if (models_dir / n).is_file()), None)
    keep = f"keeping llm.model {cfg.llm.model}"
    if path is None:
        print(
            f"xiaoting models probe: no LLM file in {models_dir} yet: the probe cannot run; {keep}",
            file=sys.stderr,
        )
        return 1
    model = LocalModel(path, n_ctx=512, n_threads=cfg.llm.n_threads)
    try:
        speed = asyncio.run(model.probe(steps=32))
    except (ModelError, OSError, RuntimeError) as err:
        print(f"xiaoting models probe: cannot run {path.name}: {err}; {keep}", file=sys.stderr)
        return 1
    finally:
        model.close()
    large = manifest.get(LARGE_LLM) if isinstance(manifest, dict) else None
    large_bytes = sum(f.size for f in large.files) if large is not None else 1_117_320_736
    choice, estimate = pick_llm(
        speed["decode_tps"], path.stat().st_size, large_bytes, args.threshold
    )
    done = set_config_llm(Path(args.write_config), choice) if args.write_config else ""
    if args.json:
        print(
            json.dumps(
                {
                    **speed,
                    "model": path.stem,
                    "large_estimate_tps": round(estimate, 2),
                    "threshold_tps": args.threshold,
                    "llm": choice,
                    **({"config": done} if done else {}),
                }
            )
        )
        return 0
    print(
        f"measured {path.stem}: {speed['decode_tps']:.1f} decode tokens/s, "
        f"{speed['prefill_tps']:.0f} prompt tokens/s ({speed['threads']} threads)"
    )
    print(
        f"{LARGE_LLM}: about {estimate:.1f} decode tokens/s here "
        f"({'at least' if choice == LARGE_LLM else 'below'} {args.threshold:g})"
    )
    if done:
        print(done)
    print(f"llm: {choice}")
    return 0


def cmd_models(args: argparse.Namespace, cfg: config_mod.Config) -> int:
    """List, fetch, verify or hash model files (see models/manifest.toml)."""
    from device import model_files as models

    manifest = models.load_manifest()
    models_dir = Path(args.models_dir or cfg.models_dir).expanduser()
    cache_dir = Path(args.cache_dir) if args.cache_dir else None
    if args.action == "probe":
        return models_probe(args, cfg, manifest, models_dir)
    if args.action == "hash":
        if not args.ids:
            print("xiaoting models hash: name the files or folders to hash", file=sys.stderr)
            return 2
        for target in args.ids:
            p = Path(target)
            size, sha = (
                models.tree_sha256(p) if p.is_dir() else (p.stat().st_size, models.file_sha256(p))
            )
            print(f"{sha}  {size}  {p}")
        return 0
    profile = args.profile
    if args.action == "list":
        chosen = (
            models.select(manifest, profile=profile, ids=args.ids)
            if (profile or args.ids)
            else list(manifest.values())
        )
        used = {cfg.llm.model.removesuffix(".gguf"), cfg.asr_model, cfg.tts_voice}
        missing = 0
        for m in chosen:
            size = f"{m.size / 1e6:,.0f} MB" if m.size else "size unknown"
            mark = "  (used by this config)" if m.id in used else ""
            print(
                f"{m.id}  [{m.role}, {','.join(m.languages)}, {','.join(m.profiles)}, {size}]{mark}"
            )
            for spec in m.files:
                state, detail = models.file_status(models_dir, spec)
                missing += state != "installed"
                print(
                    f"    {state:9} {spec.path}" + (f"  ({detail})" if state == "corrupt" else "")
                )
        print(f"models dir {models_dir}: {missing} file(s) missing or corrupt")
        return 0
    if not profile and not args.ids:
        profile = models.configured_profile(manifest, cfg.llm.model)
        print(f"profile {profile} (the one holding llm.model {cfg.llm.model})")
    chosen = models.select(manifest, profile=profile, ids=args.ids)
    store = models.ModelStore(models_dir, cache_dir)
    if args.action == "fetch":
        report = asyncio.run(store.fetch(chosen, force=args.force))
    else:
        report = models.FetchReport()
        for model in chosen:
            for spec in model.files:
                if cache_dir:
                    try:
                        store.verify(spec, (models_dir / spec.path).resolve(), full=True)
                        report.results[spec.path] = "present"
                    except models.ModelFileError as err:
                        report.results[spec.path] = f"failed: {err}"
                    continue
                state, detail = models.file_status(models_dir, spec, full=True)
                report.results[spec.path] = (
                    "present" if state == "installed" else f"failed: {state}: {detail}"
                )
    for path, result in report.results.items():
        ok = result in ("present", "fetched")
        detail = result.removeprefix("failed: ").removeprefix(f"{path}: ")
        print(f"{'ok  ' if ok else 'FAIL'} {path}: {detail}")
    if not report.ok:
        bad = [
            m.id
            for m in chosen
            if any(
                not report.results.get(f.path, "present").startswith(("present", "fetched"))
                for f in m.files
            )
        ]
        corrupt = any(
            "corrupt" in r or "sha256" in r or "size" in r for r in report.results.values()
        )
        what = (
            f"--force {' '.join(bad)}"
            if corrupt
            else (f"--profile {profile}" if profile and not args.ids else " ".join(bad))
        )
        print(
            f"some model files are missing or corrupt; run `xiaoting models fetch {what}`",
            file=sys.stderr,
        )
    return 0 if report.ok else 1


def _among(folder: Path, paths: list[str]) -> bool:
    """True when `folder` is one of `paths` (compared resolved, `~` expanded)."""
    target = folder.expanduser().resolve()
    return any(Path(p).expanduser().resolve() == target for p in paths)


def cmd_library(args: argparse.Namespace, cfg: config_mod.Config) -> int:
    """List the albums, add an album folder, or check that every file plays."""
    from device import library

    paths = list(cfg.library.paths)
    if args.action == "add":
        if len(args.paths) != 1:
            print("xiaoting library add: name one album folder", file=sys.stderr)
            return 2
        root = Path(args.to or paths[0]).expanduser()
        if not _among(root, paths):
            print(
                f"xiaoting library add: {root} is not in library.paths ({', '.join(paths)}), "
                "so the player would never see the album; add it to library.paths in "
                f"{cfg.source} first, or leave --to out",
                file=sys.stderr,
            )
            return 1
        try:
            entry = library.add(Path(args.paths[0]), root, name=args.name)
        except (library.LibraryError, OSError) as err:
            print(f"xiaoting library add: {err}", file=sys.stderr)
            return 1
        print(
            f"added {entry.title!r}: {library.counted(entry.episodes, 'episode')} in {entry.folder}"
        )
        return 0
    if args.paths:
        paths = args.paths
    if args.action == "list":
        found = library.survey(paths)
        for album in found.albums:
            print(f"{album.title}  ({library.counted(album.episodes, 'episode')})  {album.folder}")
        for line in found.problems():
            print(f"  note: {line}")
        print(found.summary())
        remote = [f"{len(cfg.library.feeds)} podcast feeds"] if cfg.library.feeds else []
        remote += ["LibriVox"] if cfg.library.librivox else []
        remote += [f"JSON source {s.name}" for s in cfg.library.json_sources]
        if remote:
            print(f"also searched online: {', '.join(remote)}")
        return 0
    found, bad = library.check(paths)
    for line in found.problems():
        print(f"warn {line}")
    for path, reason in bad:
        print(f"FAIL {path}: {reason}")
    plays = "file does not play" if len(bad) == 1 else "files do not play"
    print(f"{found.summary()}; {len(bad)} {plays}")
    return 1 if bad or found.missing else 0


def cmd_web(args: argparse.Namespace, cfg: config_mod.Config) -> int:
    """The household's page: `password` sets its password (asked twice on a terminal, one
    line from standard input otherwise, or made with --generate and printed once)."""
    import getpass

    from device.doctor import command
    from device.web import auth, page_url

    path = auth.password_path(cfg.path("state_dir"))
    if args.if_unset and auth.Password(path).is_set:
        print(
            f"the page's password is already set ({path}); `{command(cfg)} web password` changes it"
        )
        return 0
    if args.generate:
        password = auth.generate_password()
    elif sys.stdin.isatty():
        password = getpass.getpass("new password for the page: ")
        if getpass.getpass("the same again: ") != password:
            print("xiaoting web password: the two did not match; nothing changed", file=sys.stderr)
            return 1
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    try:
        auth.set_password(path, password)
    except auth.PasswordError as err:
        print(f"xiaoting web password: {err}; nothing changed", file=sys.stderr)
        return 1
    where = page_url(cfg) if cfg.web.enabled else "(off: set [web] enabled = true)"
    if args.generate:
        print(f"the page {where}: password {password}")
        # sudo only where this user could not write the password file (a device's, owned
        # by the service), not on a PC config in the listener's own folder
        sudo = "" if os.access(path, os.W_OK) else "sudo "
        print(f"(shown once; `{sudo}{command(cfg)} web password` sets another)")
    else:
        print(f"password set for the page {where}; pages logged in before must log in again")
    return 0


def cmd_mcp(args: argparse.Namespace, cfg: config_mod.Config) -> int:
    """Offer xiaoting's tools over MCP on stdio (for clients that spawn a process)."""
    from device import commands

    return asyncio.run(commands.serve_mcp_stdio(cfg))


def cmd_demo(args: argparse.Namespace, cfg: config_mod.Config) -> int:
    """Make a demo library and run a few turns through the whole real chain."""
    from device import demo

    return asyncio.run(demo.run(cfg, out=Path(args.out) if args.out else None, turns=args.turn))


# ---------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `xiaoting` command."""

    def common_options(default: object) -> argparse.ArgumentParser:
        # The same options before or after the subcommand; the subcommand's copy does not
        # overwrite a value given before it (argparse.SUPPRESS).
        common = argparse.ArgumentParser(add_help=False)
        common.add_argument("--config", metavar="PATH", default=default, help="config file (TOML)")
        common.add_argument(
            "--debug", action="store_true", default=default or False, help="log at debug level"
        )
        common.add_argument(
            "--language", choices=config_mod.LANGUAGES, default=default, help="override language"
        )
        return common

    parser = argparse.ArgumentParser(
        prog="xiaoting", description=__doc__.splitlines()[0], parents=[common_options(None)]
    )
    common = common_options(argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, func, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text, parents=[common])
        p.set_defaults(func=func)
        return p

    p = add("run", cmd_run, "run the assistant (what the systemd service starts)")
    p.add_argument(
        "--keyboard", action="store_true", help="push-to-talk with Enter on this terminal"
    )
    p = add("ask", cmd_ask, "one text turn, printing each ReAct step")
    p.add_argument("text", nargs="+")
    p.add_argument(
        "--local", action="store_true", help="run in this process even if the service runs"
    )
    p.add_argument("--wait", type=float, default=0.0, help="seconds to keep playing after the turn")
    p = add("tool", cmd_tool, "call one tool directly: xiaoting tool NAME '{\"arg\": 1}'")
    p.add_argument("name", nargs="?")
    p.add_argument("arguments", nargs="?", default="{}")
    p.add_argument("--list", action="store_true", help="list the tools and their parameters")
    p.add_argument("--json", action="store_true", help="print the structured result as JSON")
    p.add_argument(
        "--wait",
        type=float,
        default=0.0,
        help="seconds to keep playing/downloading after the call (in-process only)",
    )
    p = add("status", cmd_status, "state of the running service")
    p.add_argument("--json", action="store_true", help="the same facts as JSON")
    p = add("inject", cmd_inject, "add a correction to the current or next turn")
    p.add_argument("text", nargs="+")
    p = add("trace", cmd_trace, "the last turns' steps with timings")
    p.add_argument("-n", type=int, default=3, help="how many turns (default 3)")
    p.add_argument("--json", action="store_true", help="raw JSON lines")
    p = add("doctor", cmd_doctor, "check config, models, audio, GPIO, disk, network")
    p.add_argument("--full", action="store_true", help="re-hash every model file")
    p = add("models", cmd_models, "list | fetch | verify | hash model files")
    p.add_argument("action", choices=("list", "fetch", "verify", "hash", "probe"))
    p.add_argument("ids", nargs="*", help="model ids (or, for hash, paths)")
    p.add_argument("--profile", help="device, ci or ci-large")
    p.add_argument("--models-dir", help="default: the config's models_dir")
    p.add_argument("--cache-dir", help="shared download cache (default ~/.cache/xiaoting/models)")
    p.add_argument("--force", action="store_true", help="download again even if present")
    p.add_argument("--json", action="store_true", help="probe: one JSON line")
    p.add_argument(
        "--threshold",
        type=float,
        default=LARGE_MIN_TPS,
        help=f"probe: the 1.5B is chosen at this many decode tokens/s (default {LARGE_MIN_TPS:g})",
    )
    p.add_argument("--write-config", help="probe: set llm.model in this config file")
    p = add("library", cmd_library, "list | add FOLDER | check the local library")
    p.add_argument("action", choices=("list", "add", "check"))
    p.add_argument("paths", nargs="*", help="add: the album folder; list/check: other folders")
    p.add_argument("--name", help="add: the album's folder name in the library")
    p.add_argument("--to", help="add: the library folder (default: the first library.paths)")
    p = add("web", cmd_web, "the household's page: web password sets its password")
    p.add_argument("action", choices=("password",))
    p.add_argument("--generate", action="store_true", help="make a random one and print it")
    p.add_argument(
        "--if-unset", action="store_true", help="do nothing when a password is set already"
    )
    add("mcp", cmd_mcp, "serve the tools over MCP on stdio")
    p = add("demo", cmd_demo, "make a demo library and run a few turns end to end")
    p.add_argument(
        "--out",
        help="WAV file to write the audio to (default: the sound card, else STATE_DIR/demo.wav)",
    )
    p.add_argument("--turn", action="append", help="a request to send (repeatable)")
    return parser


# Subcommands whose positional words may also come after options
# (`xiaoting models verify --force ID`, `xiaoting ask --language zh 现在在播什么`).
_TRAILING_WORDS = ("ids", "text", "paths")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line; words left after the options join the subcommand's list."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        dest = next((d for d in _TRAILING_WORDS if isinstance(getattr(args, d, None), list)), None)
        if dest is None or any(word.startswith("-") and word != "-" for word in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        getattr(args, dest).extend(extra)
    return args


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `xiaoting` console script."""
    args = parse_args(argv)
    try:
        cfg = resolve_config(args.config, language=args.language)
    except config_mod.ConfigError as err:
        logs.setup("INFO")
        print(f"xiaoting: configuration error: {err}", file=sys.stderr)
        return 2
    # The service and the model commands log at the configured level; the interactive
    # commands print their results, and log only warnings unless --debug.
    quiet = args.command not in ("run", "models", "doctor")
    logs.setup("WARNING" if quiet else cfg.log_level, debug=args.debug)
    logs.add_secret(cfg.remote.api_key)
    try:
        return args.func(args, cfg)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # "xiaoting status | head": the reader went away; nothing more to say, and no
        # second error when Python flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as err:  # one clear line instead of a traceback; --debug shows it
        from device import model_files

        if isinstance(err, model_files.ModelFileError | config_mod.ConfigError):
            print(f"xiaoting: {err}", file=sys.stderr)
            return 1
        if args.debug:
            raise
        print(
            f"xiaoting {args.command}: {type(err).__name__}: {err} (--debug for details)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
