"""The files a shell call's own output says it wrote, as changes (blind check 40, W4).

:func:`reported_changes` turns what :func:`compactor.facts.reportedwrites.reported_writes`
finds in a call's output ("Copied plan template to /…/plan.md", "Created src/x.ts") into
:class:`.local_files.Change` records: a relative path is resolved where the call ran (its
recorded directory, a leading ``cd``), a path the command's own text already changes is left
to that change, and the action names the command: "written by `setup.sh --json`'s script (its
output: “Copied plan template to …”)". "created" only when the line says so; a file an earlier
read or listing showed is "written"/"overwritten" instead (:mod:`.local_madeby`). A failed call
counts too: what its output says it wrote before the error was written.
"""

from __future__ import annotations

from compactor.facts import Call, command_of, cut
from compactor.facts.reportedwrites import reported_writes
from compactor.facts.shellwrap import inner_command
from compactor.facts.templatewrites import template_dirs, template_folder, template_names

from .local_files import Change
from .local_places import Places

__all__ = ["REPORTED", "reported_changes"]

REPORTED = "created by `"
"""How the action of a file a call's output says it created starts (:mod:`.local_madeby` makes
it "written"/"overwritten" when an earlier read or listing showed the file)."""


def reported_changes(call: Call, text: str, places: Places, found: list[Change]) -> list[Change]:
    """The changes ``call``'s output ``text`` reports that ``found`` (the command's own
    changes) does not hold, their paths resolved where the call ran."""
    reported = reported_writes(call, text)
    templates = template_dirs(command_of(call) or "") if "{" in call.arguments else []
    if not reported and not templates:
        return []
    where = places.start(call)
    have = {places.resolve(where, c.path) for c in found}
    short = cut(inner_command(call) or command_of(call) or call.name, 80)
    out: list[Change] = []
    for rep in reported:
        folder = template_folder(rep.path, templates) if templates else ""
        path = places.resolve(where, f"{folder}/{rep.path}" if folder else rep.path)
        if path in have:
            continue
        have.add(path)
        said = cut(rep.said, 60)
        act = REPORTED if rep.created else "written by `"
        out.append(Change(path, f"{act}{short}`'s script (its output: “{said} …”)"))
    for path in template_names(text, templates) if templates else ():  # (blind check 59 W2)
        if path not in have:  # "Salvo em prompt_north.txt" fits f'/srv/x/prompt_{n}.txt'
            have.add(path)
            out.append(Change(path, f"written by `{short}`'s script (its code builds the name)"))
    return out
