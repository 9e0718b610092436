"""``compact config show`` and ``compact config validate``."""

import json
from typing import Annotated

import typer

from compactor.configfile import Overrides, build_config, load_config_file, load_default_config

from . import common
from .common import ConfigOpt, DebugOpt, ThresholdOpt, TokenCounterOpt
from .exitcodes import short_exit_codes
from .helptext import epilog

__all__ = ["SHOW_EPILOG", "VALIDATE_EPILOG", "config_show", "config_validate"]

SHOW_EPILOG = epilog(
    [
        ("the built-in defaults (or $COMPACT_CONFIG's file)", "compact config show"),
        (
            "a file as a run would use it, as JSON",
            "compact config show -c configs/openai.yaml --json",
        ),
    ],
    short_exit_codes("the config was printed", "the config file is invalid"),
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
            help="Override the summarizer: local or openai:NAME.",
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
    from compactor.effective import effective_config

    try:
        file_cfg = load_default_config(config).with_flags(
            threshold=common.tokens(threshold), token_counter=token_counter
        )
        data = effective_config(file_cfg, Overrides(model=model))
        if as_json:
            common.say(json.dumps(data, indent=2), json_text=True)
            return
        import yaml

        source = f"{file_cfg.path} + " if file_cfg.path else ""
        common.say(f"# effective config: built-in defaults + {source}environment + flags")
        common.say(yaml.safe_dump(data, sort_keys=False, allow_unicode=True).rstrip())
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)


def config_validate(
    config: Annotated[str, typer.Argument(metavar="FILE", help="The YAML config file to check.")],
    debug: DebugOpt = False,
) -> None:
    """Check a config file: keys, types, ${VAR}s, hooks and models.

    Every ${VAR} the config needs must be set (an API key's variable included); the error names
    the one that is not. Imports the pkg.mod:func modules it names (that runs their code).
    """
    from compactor import new

    try:
        file_cfg = load_config_file(config)
        cfg = build_config(file_cfg, transcript_path_auto="/dev/null")
        new(cfg)
        common.say(f"{config}: ok")
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)
