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

from collections.abc import Collection

from compactor.facts import Call, command_of, cut
from compactor.facts.reporteddeletes import reported_deletions
from compactor.facts.reportedwrites import reported_writes
from compactor.facts.shellwrap import inner_command
from compactor.facts.templatewrites import template_dirs, template_folder, template_names

from .local_files import Change
from .local_places import Places

__all__ = ["REPORTED", "reported_changes", "reported_removals"]

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


_FEW = 8
"""How many deleted files a call's output may name for each to be listed, known or not: a mass
``git clean`` of build debris lists only the files the session knew."""


def reported_removals(
    call: Call, text: str, places: Places, found: list[Change], *known: Collection[str]
) -> list[Change]:
    """The deletions ``call``'s output ``text`` reports (``git clean``'s "Removing X", ``rm -v``'s
    "removed 'X'", ``git rm``'s "rm 'X'": :mod:`compactor.facts.reporteddeletes`) that
    ``found`` does not hold, resolved where the call ran (a ``git -C DIR`` there): a file the
    session knew (``known``: the paths changed, the paths read), or any file when the output
    names few; a folder deletes the known files under it (blind check 68, W2)."""
    deleted = reported_deletions(call, text)
    if deleted is None:
        return []
    where = places.start(call)
    if deleted.base:
        where = places.resolve(where, deleted.base) if where else deleted.base
    have = {places.resolve(where, c.path) for c in found if c.action == "deleted"}
    few, paths = len(deleted.paths) <= _FEW, dict.fromkeys(p for each in known for p in each)
    out: list[Change] = []
    for printed in deleted.paths:
        path = places.resolve(where, printed).rstrip("/")
        inside = [k for k in paths if k.startswith(path + "/")]
        for gone in inside or ([path] if few or path in paths else []):
            if gone not in have:
                have.add(gone)
                out.append(Change(gone, "deleted"))
    return out
