"""A call that destroyed or overwrote data for good is named as such in section 8, with its
target when that looked remote or production (blind check 67 N2/N3: "Worked around by Bash: npx
prisma migrate reset --force (succeeded)" was all a summary said of a reset that wiped a
production database). Invented hosts, projects and credentials only."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.facts.irreversible import irreversible, remote_target

from .cc_session import Session, cc_summary, section

ENV = "DATABASE_URL=postgresql://app:Xk92mPq7vLw3@shuttle.proxy.example-cloud.net:5432/railway\n"


def _reset_session(env: str, reset_ok: bool = True) -> Session:
    s = Session()
    s.user("Create the tables for the new schema and make the build pass.")
    s.call("Write", {"file_path": "/home/dev/board/.env", "content": env}, "File created")
    s.call("Bash", {"command": "npx prisma db push"}, "Error: P1014: table `User` missing", True)
    out = "Database reset successful\nYour database is now in sync with your schema."
    if not reset_ok:
        out = "Error: P1001: Can't reach database server"
    s.call("Bash", {"command": "npx prisma migrate reset --force"}, out, not reset_ok)
    s.say("The schema is applied.")
    return s


def test_a_database_reset_on_a_remote_host_is_named_irreversible(tmp_path: Path) -> None:
    summary = cc_summary(_reset_session(ENV), tmp_path)
    current = section(summary, 8)
    assert "Irreversible: `npx prisma migrate reset --force` (reset the database" in current
    assert "its data was deleted" in current
    assert "remote/production: host shuttle.proxy.example-cloud.net" in current
    assert summary.count("Irreversible:") == 1
    assert "Xk92mPq7vLw3" not in summary


def test_a_reset_of_a_local_database_names_no_remote_target(tmp_path: Path) -> None:
    env = "DATABASE_URL=postgresql://app:pw@localhost:5432/board\n"
    current = section(cc_summary(_reset_session(env), tmp_path), 8)
    assert "Irreversible: `npx prisma migrate reset --force`" in current
    assert "remote" not in current


def test_a_failed_reset_destroyed_nothing(tmp_path: Path) -> None:
    summary = cc_summary(_reset_session(ENV, reset_ok=False), tmp_path)
    assert "Irreversible" not in summary


def test_a_migration_file_being_written_is_no_command(tmp_path: Path) -> None:
    s = Session()
    s.user("Add a migration that drops the old users table.")
    sql = "DROP INDEX IF EXISTS users_email;\nDROP TABLE IF EXISTS old_users;\n"
    s.call("Write", {"file_path": "/home/dev/board/migrations/002.sql", "content": sql}, "ok")
    s.bash("npx prisma migrate dev --name drop_old", "Applied migration 002")
    s.bash("rm -rf node_modules/.cache dist && git reset --soft HEAD~1", "")
    s.say("The migration is written.")
    assert "Irreversible" not in cc_summary(s, tmp_path)


def test_a_forced_push_and_a_conflict_side_discarded_are_named(tmp_path: Path) -> None:
    s = Session()
    s.user("merge the remote changes and push")
    s.bash("git pull origin main", "CONFLICT (content): Merge conflict in src/app.ts")
    s.bash("git checkout --ours src/app.ts src/page.tsx && git add -A", "")
    s.bash("git push --force origin main", "+ 1b2c3d4...5e6f7a8 main -> main (forced update)")
    s.say("Pushed.")
    current = section(cc_summary(s, tmp_path), 8)
    assert "`git checkout --ours src/app.ts src/page.tsx` (kept one side" in current
    assert "their (incoming) side's changes were discarded" in current
    assert "`git push --force origin main` (overwrote the remote branch's history)" in current


@pytest.mark.parametrize(
    ("command", "effect"),
    [
        ("npx prisma db push --force-reset", "reset the database"),
        ("npx prisma db push --accept-data-loss", "accepted data loss"),
        ('psql "$DATABASE_URL" -c "DROP TABLE users;"', "dropped table users"),
        ('sqlite3 app.db "DROP SCHEMA IF EXISTS audit"', "dropped schema audit"),
        ("mysql -e 'DROP DATABASE shop'", "dropped database shop"),
        ('psql -c "TRUNCATE TABLE events"', "emptied table events"),
        ("dropdb board_dev", "dropped database board_dev"),
        ("redis-cli FLUSHALL", "every key of the Redis database"),
        ("git reset --hard origin/main", "discarded the uncommitted changes"),
        ("git push -f", "overwrote the remote branch's history"),
        ("git push --force-with-lease origin feat", "overwrote the remote branch's history"),
        ("git push origin +main", "overwrote the remote branch's history"),
        ("git clean -fdx", "deleted untracked files"),
        ("git checkout --theirs .", "our (local) side's changes were discarded"),
        ("docker compose down -v", "volumes"),
        ("docker-compose down --volumes", "volumes"),
        ("docker volume rm pgdata", "volumes"),
        ("rm -rf data/uploads", "deleted data/uploads for good"),
        ("bash -lc 'cd app && rm -r -f storage'", "deleted storage for good"),
        ("Remove-Item -Recurse -Force C:\\app\\uploads", "deleted C:\\app\\uploads for good"),
        ("rd /s /q db", "deleted db for good"),
        ('psql "$DATABASE_URL" <<SQL\nDROP TABLE old_users;\nSQL', "dropped table old_users"),
    ],
)
def test_irreversible_commands_are_recognised_by_shape(command: str, effect: str) -> None:
    found = irreversible(command)
    assert len(found) == 1, found
    assert effect in found[0][1]


@pytest.mark.parametrize(
    "command",
    [
        "git reset --soft HEAD~1",
        "rm -rf node_modules",
        "rm -rf dist build .next __pycache__ src/__pycache__",
        "rm -rf /tmp/board-export",
        "cd app && rm -rf node_modules package-lock.json && npm install",
        "npx prisma migrate dev --name init",
        "git push origin main",
        "git clean -n",
        "docker compose down",
        "rm -f notes.txt",
        'psql -c "DROP INDEX IF EXISTS idx_users_email"',
        "truncate -s 0 app.log",
        "Remove-Item -Recurse -Force node_modules",
        "rmdir /s /q build",
        "Remove-Item -Path notes.txt",
        "git clean -fn",
        'grep -rn "DROP TABLE users" migrations/',
        'echo "TRUNCATE events" >> notes.md',
        'git commit -m "DROP TABLE sessions in migration 004"',
        "cat > migrations/003.sql <<'EOF'\nDROP TABLE IF EXISTS old_users;\nEOF",
    ],
)
def test_ordinary_commands_are_not_irreversible(command: str) -> None:
    assert irreversible(command) == []


def test_a_remote_target_comes_from_the_command_or_its_words() -> None:
    local = "DATABASE_URL=postgresql://u:p@localhost:5432/db npx prisma migrate reset --force"
    assert remote_target(local, "db.example.net") == ""  # the command's own URL wins
    assert remote_target("npx prisma migrate reset --force", None) == ""
    assert "railway" in remote_target("railway run npx prisma migrate reset --force", None)
    assert "db.prod.example.com" in remote_target("psql -h db.prod.example.com -c 'x'", None)


def test_an_irreversible_call_of_an_earlier_request_says_so(tmp_path: Path) -> None:
    s = _reset_session(ENV)
    s.user("now add a users page")
    s.bash("npm run build", "Compiled successfully")
    s.say("The page is added.")
    current = section(cc_summary(s, tmp_path), 8)
    assert "`npx prisma migrate reset --force` (reset the database" in current
    assert "before the current request)" in current
