"""The session model with every judgement applied, in order: :func:`modelled`.

:func:`~.local_session.build_session` walks the context once; each judge after it re-reads the
whole session for one shape it corrects (a fix that did not hold, a request that was an aside, a
failure the user fixed). Their order matters where one judge reads another's verdicts (noted
beside each call); :func:`~.local_failures.judge_last_runs` comes last of the failure judges.
Moved out of :mod:`.local_state`, which writes where the session ended from this model.
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor.facts import (
    entries_of,
)
from compactor.schema import AgenticMessage, Message

from .local_abandoned import judge_stop_writes
from .local_actions import judge_actions
from .local_answers import judge_answers
from .local_argretry import judge_arg_retries
from .local_aside import judge_asides
from .local_banner import judge_banners
from .local_blocked import judge_blocked
from .local_busy import judge_busy
from .local_checkedlater import judge_checked_later
from .local_claims import judge_superseded, judge_withdrawn
from .local_configfix import judge_config_fixes
from .local_contradicted import judge_contradicted_claims
from .local_dialogue import judge_disputed, judge_proposals
from .local_dryfix import judge_dry_fixes
from .local_earlier import note_earlier
from .local_editfix import judge_edit_fixes
from .local_escalated import judge_escalated
from .local_expectedanswer import judge_expected_answers
from .local_failures import judge_last_runs
from .local_fetchneed import judge_fetch_needs
from .local_fixed import judge_fixed
from .local_gonecheck import judge_gone_checks, judge_on_purpose
from .local_gotpast import judge_got_past
from .local_handoff import judge_handoff
from .local_jobfiles import judge_job_files
from .local_jobs import add_shape_jobs
from .local_lost import judge_lost
from .local_madeby import add_agent_files
from .local_newerror import judge_new_error
from .local_next import judge_next
from .local_notes import note_reasoning
from .local_offers import drop_unchosen_options
from .local_overtaken import judge_cancelled
from .local_present import judge_present
from .local_rejected import judge_rejected_calls
from .local_removed import judge_removed_reads
from .local_replies import judge_replies
from .local_retracted import judge_overruled, judge_retracted
from .local_retrychain import judge_chains
from .local_reverted import judge_reverted
from .local_rewritten import judge_rewritten
from .local_samepath import judge_same_path
from .local_samework import judge_same_work
from .local_session import Session, build_session
from .local_skipped import judge_skipped
from .local_stashlist import judge_stash_listed
from .local_statusdate import note_head_moves
from .local_supersede import (
    judge_accepted,
    judge_overtaken_causes,
    judge_refused_command,
    judge_stale_next,
)
from .local_teammates import judge_teammates
from .local_testrerun import judge_test_reruns
from .local_turns import judge_cli_rejections, judge_user_turns
from .local_userfixed import judge_user_fixed
from .local_views import judge_approved_plan, judge_revised, judge_stale_state

__all__ = ["modelled"]


def modelled(items: Sequence[Message | AgenticMessage]) -> Session:
    """The session model of the messages ``items``, with this module's judgements applied."""
    session = build_session(entries_of(items))
    note_earlier(session, items)  # calls before the harness's own compaction (set 15)
    note_head_moves(session, items)  # commits made between turns (blind check 69 N4)
    judge_banners(session)  # a line every call of the program prints is no cause (61 W3)
    judge_user_turns(session)  # a rejection carrying the user's words is a request (set 13)
    judge_blocked(session)  # texts typed while the CLI's usage limit blocked are no requests
    judge_asides(session, items)  # a short note typed mid-turn is no new request (BENCH50 W4)
    judge_replies(session)  # "done" after "Let me know when you've added it!" (67 W2)
    judge_handoff(session)  # answered, then only a note call in flight (blind check 18)
    add_shape_jobs(session)
    add_agent_files(session)  # what sub-agents say they made (blind check 22)
    judge_answers(session)
    judge_actions(session)
    judge_teammates(session)  # mailbox deliveries: other agents' words (blind check 47)
    judge_proposals(session)
    drop_unchosen_options(session)  # an option the user did not choose is not decided (blind 15)
    judge_withdrawn(session)
    judge_superseded(session)
    judge_fixed(session)
    judge_lost(session)  # after judge_fixed: a fix whose change was found lost is none
    judge_stale_state(session)
    judge_revised(session)
    judge_approved_plan(session)
    judge_arg_retries(session)  # retried with one argument corrected (BENCH48 W4)
    judge_gone_checks(session)  # `ls X` exits 2 right after `rm -rf X` (fix57a)
    judge_on_purpose(session)  # "Refusing to …": the step's outcome, no crash (fix57a)
    judge_skipped(session)
    judge_busy(session)  # refused while an agent ran, which finished later (blind 16)
    judge_escalated(session)  # re-run with more rights after the sandbox's refusal (57 W6)
    judge_next(session)
    judge_stop_writes(session)  # a failed Ctrl-C to a job that ended (blind check 43 W2)
    judge_got_past(session)  # a missing program a later call ran (blind check 14)
    judge_fetch_needs(session)  # a failed fetch whose need a later lookup met (BENCH48 W3)
    judge_rewritten(session)  # a failed Write whose file a later call wrote (blind check 26)
    judge_cli_rejections(session)  # the CLI's STOP text is no rule of the user's (set 13)
    judge_rejected_calls(session)  # said rejected, its lead-in a rejected proposal (blind 26)
    judge_disputed(session)
    judge_stale_next(session)
    judge_overtaken_causes(session)
    judge_contradicted_claims(session)  # "built and pushed!", then the build failed (blind 26)
    judge_accepted(session)
    judge_cancelled(session)  # accepted, then "nevermind, move to …" (blind check 39, W5)
    judge_refused_command(session)
    judge_reverted(session)  # rejected or replaced by a later change (blind check 22)
    judge_checked_later(session)  # "T030 is still unchecked", then checked (blind 46 W4)
    judge_retracted(session)  # "I was wrong earlier …" (blind check 58 W2)
    judge_overruled(session)  # the user: "no need to …", and the agent went on (58 W8)
    judge_stash_listed(session)  # "the work is stashed", then `git stash list` shows none
    judge_job_files(session)  # deleted, then a background job that writes it (blind 39 W3)
    judge_present(session)
    judge_new_error(session)  # a rerun got past it, then failed otherwise (blind check 37 W1)
    judge_test_reruns(session)  # a later test run failed for other reasons (BENCH42 W3)
    judge_user_fixed(session)  # "ok i already installed it", when nothing else settled it (W8)
    judge_dry_fixes(session)  # a dry run fixes nothing; a permission cause came back (58 W7)
    judge_same_work(session)  # the same script, operation or probe done another way (59)
    judge_same_path(session)  # a failed probe's URL path later answered 200 (blind check 62 W3)
    judge_edit_fixes(session)  # an edit of what the failure names, then a re-run (59 W3)
    judge_expected_answers(session, items)  # an unflagged probe's 404, "404 is normal" (62 W1, W4)
    judge_chains(session)  # failed again, then that attempt was resolved (blind check 58 W4)
    judge_config_fixes(session)  # `git config …` between a failure and its fix (66 N4)
    judge_last_runs(session.errors)  # the same command failed again after its "fix" (70 W4)
    judge_removed_reads(session)  # read in a folder removed later: gone (blind check 36 W7)
    note_reasoning(session, items)  # the current turn's reasoning (blind check 48 N1)
    return session
