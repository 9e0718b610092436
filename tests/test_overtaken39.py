"""Proposals and acceptances the later dialogue overtook (blind check 39, W2 and W5).

W2: the assistant wrote "Loss went NaN … Let me fix the model with numerically stable attention
and lower learning rate, then restart:" and called ``kill PID``; the user rejected only that
call, asked something else, then "run the model", and the assistant made exactly that fix with
later successful edits (the new training job runs with it). The summary listed the fix among
the "Proposals the user turned down … do not act on them". A proposal that later successful
changes carried out is not turned down, and a rejected call that only stopped a process turns
down that call, not the plan before it, unless the user's next message says no to the plan.

W5: "Accepted by the user: … I'll run the updates" although the user's next message cancelled
it ("nevermind, move to use case 12 branch") and nothing of it was done. The sessions are
built here with invented content."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section
from .test_rejections_fix27a import CC_BARE

FIX = (
    "Loss went NaN from epoch 3 — the manual attention computation overflows in AMP. Let me fix "
    "the model with numerically stable attention and lower learning rate, then restart:"
)
MODEL = "/w/derain/models/rain_model.py"
TRAIN = "/w/derain/train.py"
TURNED_DOWN = "Proposed, then the user rejected its call"


def _lowlight(
    carried_out: bool, rejected: str = "bash restart.sh", then: str = ""
) -> SessionBuilder:
    s = SessionBuilder()
    s.user("train the deraining model on the new pairs")
    s.call(
        "Bash",
        {"command": "nohup python train.py > train_output.log 2>&1 &"},
        "[1] 4155536",
        text="Starting the training run.",
    )
    s.call("Bash", {"command": "tail -5 train_output.log"}, "epoch 3 loss nan\nepoch 4 loss nan")
    s.call("Bash", {"command": rejected}, CC_BARE, text=FIX, error=True)
    s.user("[Request interrupted by user for tool use]")
    s.user(then or "what does PSNR measure exactly?")
    s.say("PSNR compares the restored image with the clean one, in decibels: higher is better.")
    if not carried_out:
        return s
    s.user("run the model")
    s.call("Bash", {"command": "kill 4155536"}, "", text="Stopping the diverged run first.")
    s.call(
        "Edit",
        {
            "file_path": MODEL,
            "old_string": "attn = (q @ k.transpose(-2, -1)).softmax(-1)",
            "new_string": "self.attn = nn.MultiheadAttention(dim, heads)",
        },
        f"The file {MODEL} has been updated.",
        text="Replace the manual attention with numerically stable nn.MultiheadAttention:",
    )
    s.call(
        "Edit",
        {"file_path": TRAIN, "old_string": "lr = 1e-3", "new_string": "lr = 2e-4"},
        f"The file {TRAIN} has been updated.",
        text="Lower learning rate:",
    )
    s.call(
        "Edit",
        {"file_path": TRAIN, "old_string": "use_amp = True", "new_string": "use_amp = False"},
        f"The file {TRAIN} has been updated.",
        text="AMP off:",
    )
    s.call("Bash", {"command": "python check_forward.py"}, "NaN in loss: False")
    s.call("Bash", {"command": "nohup python train.py > train_output.log 2>&1 &"}, "[1] 11171")
    s.say("Training relaunched (PID 11171) with the stable attention, lr 2e-4 and AMP off.")
    return s


def test_a_proposal_later_edits_carried_out_is_not_turned_down() -> None:
    solving = section(summarize_transcript(_lowlight(carried_out=True).messages), 5)
    assert TURNED_DOWN not in solving, solving
    assert "The user rejected: `Bash: bash restart.sh`" in solving, solving  # the call still is


def test_a_proposal_nothing_carried_out_is_still_turned_down() -> None:
    solving = section(summarize_transcript(_lowlight(carried_out=False).messages), 5)
    assert TURNED_DOWN in solving, solving


def test_unrelated_later_edits_do_not_clear_a_turned_down_proposal() -> None:
    s = _lowlight(carried_out=False)
    s.user("add a README for the dataset folder")
    s.call(
        "Write",
        {"file_path": "/w/derain/data/README.md", "content": "# Pairs\nRainy/clean.\n"},
        "File created successfully at: /w/derain/data/README.md",
        text="Writing the README.",
    )
    s.say("Added data/README.md.")
    solving = section(summarize_transcript(s.messages), 5)
    assert TURNED_DOWN in solving, solving


def test_a_rejected_kill_turns_down_the_kill_not_the_fix_before_it() -> None:
    """Rule a: the user rejected only ``kill PID``; the plan before it was not said no to."""
    s = _lowlight(carried_out=False, rejected="kill 4155536")
    solving = section(summarize_transcript(s.messages), 5)
    assert TURNED_DOWN not in solving, solving
    assert "The user rejected: `Bash: kill 4155536` (not run)" in solving, solving


def test_a_rejected_kill_the_user_then_says_no_to_is_still_turned_down() -> None:
    then = "no, let the run go on and don't touch the model"
    s = _lowlight(carried_out=False, rejected="kill 4155536", then=then)
    solving = section(summarize_transcript(s.messages), 5)
    assert TURNED_DOWN in solving, solving


def test_a_rejected_kill_and_restart_in_one_call_is_still_turned_down() -> None:
    s = _lowlight(carried_out=False, rejected="kill 4155536 && python train.py --lr 2e-4")
    solving = section(summarize_transcript(s.messages), 5)
    assert TURNED_DOWN in solving, solving


UPDATES = "Once you confirm and give the command, I'll run the updates and re-check the artifacts."


def _aiden(then: str, work: bool = False) -> SessionBuilder:
    s = SessionBuilder()
    s.user("analyze the UC011 spec for gaps")
    s.call("Read", {"file_path": "/w/specs/uc011/spec.md"}, "# UC011\n- citations missing\n")
    s.say(
        "Two gaps: the citations are missing and the acceptance criteria are vague. I recommend "
        "leaving the citation issue for now. " + UPDATES
    )
    s.user("yes")
    if work:
        s.call(
            "Edit",
            {
                "file_path": "/w/specs/uc011/spec.md",
                "old_string": "vague",
                "new_string": "measurable",
            },
            "The file /w/specs/uc011/spec.md has been updated.",
            text="Running the updates.",
        )
    s.say("Understood: citations stay as they are. Give the command when you want the updates.")
    s.user(then)
    s.say("Switched to the UC012 branch. Do you want the same remediation there?")
    return s


def test_an_acceptance_the_user_cancelled_next_is_no_accepted_decision() -> None:
    solving = section(
        summarize_transcript(_aiden("nevermind, move to use case 12 branch").messages), 5
    )
    assert "Accepted by the user: Once you confirm" not in solving, solving
    assert "cancelled by the user" in solving, solving


def test_an_acceptance_not_cancelled_stays_accepted() -> None:
    solving = section(summarize_transcript(_aiden("now check the UC012 branch too").messages), 5)
    assert "Accepted by the user: Once you confirm" in solving, solving
    assert "cancelled by the user" not in solving, solving


def test_an_acceptance_carried_out_before_the_redirect_stays_accepted() -> None:
    s = _aiden("nevermind, move to use case 12 branch", work=True)
    solving = section(summarize_transcript(s.messages), 5)
    assert "Accepted by the user: Once you confirm" in solving, solving
    assert "cancelled by the user" not in solving, solving
