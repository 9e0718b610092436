"""``compact config show`` and ``compact config validate``."""

import json
from typing import Annotated

import typer

from compactor.configfile import (
    CONFIG_ENV,
    Overrides,
    build_config,
    config_source,
    load_config_file,
    load_default_config,
    missing_keys,
    user_config_path,
)
from compactor.models.registry import model_flag_choices

from . import common
from .common import ConfigOpt, DebugOpt, ThresholdOpt, TokenCounterOpt
from .exitcodes import short_exit_codes
from .helptext import epilog

__all__ = [
    "INIT_EPILOG",
    "SHOW_EPILOG",
    "VALIDATE_EPILOG",
    "config_init",
    "config_show",
    "config_validate",
]

SHOW_EPILOG = epilog(
    [
        (
            "the file a run reads (-c, $COMPACT_CONFIG, ~/.config/compact/config.yaml) "
            "on top of the defaults",
            "compact config show",
        ),
        (
            "a file as a run would use it, as JSON",
            "compact config show -c configs/failover.yaml --json",
        ),
    ],
    short_exit_codes("the config was printed", "the config file is invalid"),
)
INIT_EPILOG = epilog(
    [
        ("a commented starter config where compact looks for it", "compact config init"),
        ("the example configs it ships", "compact config init --example"),
        ("one of them, into a file", "compact config init --example failover -o failover.yaml"),
    ],
    short_exit_codes("the file was written", "the file exists (--force replaces it)"),
)
VALIDATE_EPILOG = epilog(
    [("check a file before CI uses it", "compact config validate configs/failover.yaml")],
    short_exit_codes(
        "the file is valid", "it is not: the message names the file, line, key (or ${VAR})"
    ),
)


def config_show(
    config: ConfigOpt = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            metavar="MODEL",
            autocompletion=common.complete_model,
            help=f"Override the summarizer: {model_flag_choices()}.",
        ),
    ] = None,
    threshold: ThresholdOpt = None,
    token_counter: TokenCounterOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of YAML.")] = False,
    debug: DebugOpt = False,
) -> None:
    """Print the effective config: defaults, file, environment, flags.

    Every setting shows the value a run would use, defaults included, the archive folder too;
    API keys and other secrets are masked.
    """
    from compactor.runs.effective import effective_config

    try:
        file_cfg = load_default_config(config).with_flags(
            Overrides(model=model), threshold=common.tokens(threshold), token_counter=token_counter
        )
        data = effective_config(file_cfg)
        path, named_by = config_source(config)
        if as_json:  # the file it used, first (YAML says it in its header comment)
            data = {"config_file": {"path": path or "none", "from": named_by}, **data}
            common.say(json.dumps(data, indent=2), json_text=True)
            return
        import yaml

        source = f"{path} (from {named_by}) + " if path else ""
        common.say(f"# effective config: built-in defaults + {source}environment + flags")
        if not path:
            common.say(f"# no config file: no -c, no ${CONFIG_ENV}, no {user_config_path()}")
        common.say(yaml.safe_dump(data, sort_keys=False, allow_unicode=True).rstrip())
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)


def config_validate(
    config: Annotated[str, typer.Argument(metavar="FILE", help="The YAML config file to check.")],
    debug: DebugOpt = False,
) -> None:
    """Check a config file: keys, types, ${VAR}s, hooks and models.

    Every ${VAR} the config needs must be set; the error names the one that is not. An API key
    is needed only when a request is made: one that is not set is listed as `not set`, and is
    an error only for a lone model with no failover model or fallback after it (a run would
    stop there). Imports the pkg.mod:func modules it names (that runs their code).
    """
    from compactor import new

    try:
        file_cfg = load_config_file(config)
        # The models are validated from the provider table's declarations (name, keys, types,
        # ranges, API key), not built: building one imports its SDK (a remote client: ~1.8 s
        # of a process), and a client checks nothing its declaration does not.
        cfg = build_config(file_cfg, transcript_path_auto="/dev/null", build_models=False)
        new(cfg)
        common.say(f"{config}: ok")
        for line in missing_keys(file_cfg):
            key, _, why = line.partition(": ")
            common.say(f"  {key}: not set ({why}); a run fails over past this model")
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)


def config_init(
    output: Annotated[
        str | None,
        typer.Option(
            "-o",
            "--output",
            metavar="FILE",
            help="Write here (- = stdout; default: $XDG_CONFIG_HOME/compact/config.yaml, "
            "~/.config/compact/config.yaml without it).",
        ),
    ] = None,
    example: Annotated[
        bool,
        typer.Option(
            "--example",
            help="Write the shipped example NAME instead of the starter config; without NAME, "
            "list the examples.",
        ),
    ] = False,
    name: Annotated[
        str | None,
        typer.Argument(metavar="NAME", help="With --example: the example to write."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing file.")] = False,
    debug: DebugOpt = False,
) -> None:
    """Write a commented starter config, or one of the shipped examples.

    The starter config uses the embedded summarizer (no key, no network) and shows how to
    switch to an OpenAI-compatible model. Written where compact looks for it when no -c is
    given, unless -o says otherwise; an existing file is kept unless --force.
    """
    from compactor.configfile.examples import (
        example_names,
        example_summary,
        example_text,
        starter_config,
    )
    from compactor.errors import ConfigError

    try:
        if name is not None and not example:
            raise ConfigError(f"{name!r}: an example is named with --example NAME")
        if example and name is None:
            for known in example_names():
                common.say(f"{known:<10}  {example_summary(known)}")
            return
        text = example_text(name) if name is not None else starter_config()
        if output == "-":
            common.say(text.rstrip("\n"))
            return
        _write_config(output or str(user_config_path()), text, force)
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)


def _write_config(path: str, text: str, force: bool) -> None:
    """Write ``text`` to ``path`` atomically, mode 0600, its missing folders 0700."""
    import os
    from pathlib import Path

    from compactor.errors import ConfigError
    from compactor.io import atomic_write, make_private_dirs

    if os.path.lexists(path) and not force:
        raise ConfigError(f"{path} exists; --force replaces it (or -o FILE writes elsewhere)")
    if os.path.isdir(path):
        raise ConfigError(f"-o {path!r} is a directory")
    make_private_dirs(Path(os.path.abspath(path)).parent)
    atomic_write(path, text.encode("utf-8"), mode=0o600)
    common.say(f"wrote {path}; check it with: compact config validate {path}")
