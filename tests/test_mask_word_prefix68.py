"""A plain word that only starts a masked credential is not masked everywhere (blind check 68 N4:
a password "Gardenly2024!…" made every "Gardenly" — the owner and project name — a
``***``, so the repository URL read "https://github.com/***/…"). The value itself, and a cut start
of it, stay masked. All names and secrets here are invented."""

from __future__ import annotations

from compactor.models.local_mask import collecting, mask_repeats, masked, masked_whole

SECRET = "Orbitrak2031@#Lx9crypto"


def test_the_project_name_that_starts_a_password_is_kept() -> None:
    text = (
        f"ROOT_PASSWORD={SECRET}\n"
        "Clone Orbitrak repository: git clone https://github.com/Orbitrak/orbitrak-app.git\n"
        "# Orbitrak Slots Deployment Script"
    )
    out = masked_whole(text)
    assert SECRET not in out and "ROOT_PASSWORD=***" in out, out
    assert "Clone Orbitrak repository" in out
    assert "github.com/Orbitrak/orbitrak-app.git" in out
    assert "# Orbitrak Slots" in out


def test_the_value_and_its_cut_start_stay_masked() -> None:
    with collecting() as found:
        text = masked(f"ROOT_PASSWORD={SECRET}")
    out = mask_repeats(
        f"{text}\nthe user typed {SECRET} again\nshown cut: Orbitrak2031@#…\nand Orbitrak… cut",
        found,
    )
    assert SECRET not in out, out
    assert "Orbitrak2031" not in out  # a cut start with digits is the value's
    assert "and ***… cut" in out  # a word ended by a cut mark is the value's start too
