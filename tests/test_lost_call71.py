"""A call that never returned a result while the session went on is lost, and said so (blind
check 71 N2, hb_snmp: the user's PC crashed during a ``Bash`` call, the user came back and the
work went on; the summary listed the call like any other and section 7 said "no … tool call is
open"). Sessions built by shape, invented content."""

from __future__ import annotations

from .cc_session import Session, section

_LOST = "grep -rn overlayfs output/build"


def _session(lost: bool) -> str:
    s = Session()
    s.user("can I swap the service binary on the device without a firmware update?")
    s.bash("ssh dev mount | head", "/dev/sda7 on / type squashfs (ro,relatime)")
    if lost:
        s.assistant([{"type": "tool_use", "id": "toolu_lost", "name": "Bash",
                      "input": {"command": _LOST}}])  # fmt: skip
    else:
        s.bash(_LOST, "output/build/base/setup.sh:12: mount -t overlay")
    s.user("my PC crashed, here is the mount output again: tmpfs on /overlayfs type tmpfs")
    s.say("So /overlayfs is a tmpfs: every overlay is RAM-backed. The swap works via bind mounts.")
    return s.summary()


def test_a_call_the_session_went_on_past_is_named_lost() -> None:
    summary = _session(lost=True)
    pending = section(summary, 7)
    assert "Lost: `Bash: grep -rn overlayfs output/build` never returned a result" in pending
    assert f"{_LOST} (lost: it never returned a result)" in section(summary, 5)
    assert "in flight" not in pending


def test_a_call_with_its_result_is_not_lost() -> None:
    summary = _session(lost=False)
    assert "never returned a result" not in summary
