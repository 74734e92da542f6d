# Shared by t4070 (SQLite) and t6239 (PostgreSQL): retention of
# savepoints, black-box.  checkpointctl sets a job's policy (job set
# --keep-savepoints, --keep-savepoints-for), marks savepoints kept
# (savepoint keep, unkeep) and shows the verdicts (retention --dry-run);
# the runner disposes what the policy lets go through the job's dispose
# command, never the newest nor one kept, records why, and tries a failed
# disposal again only after its backoff.  The clock is the test's
# (CHECKPOINT_TEST_CLOCK, from the real time at the start), so that ages
# and the backoff pass at once.  Sourced after runner-lib.sh (and, for
# PostgreSQL, CHECKPOINT_DB and dbq set to its database).
# shellcheck disable=SC2016,SC2086

command -v jq >/dev/null 2>&1 || bail "jq is missing"
test_clock "$(now_ms)"
pass || bail "checkpoint-runner cannot open its database"
start_lighttpd

# verdicts: checkpoint id and verdict of each live savepoint, one a line.
verdicts() {
	"$CTL" retention --dry-run --job "${1:-$J}" | tail -n +2 |
	    awk '{ $1 = $2 = $3 = $5 = ""; print }' | sed 's/^ *//; s/  */ /g'
}
disposed() {
	dbq "SELECT checkpoint_id FROM savepoints WHERE job_id = '$J'
	    AND disposed_ms IS NOT NULL ORDER BY checkpoint_id" | tr '\n' ' '
}

J=$(jid 71)
"$CTL" job add "$J" --savepoint-dir file:/sp \
    --savepoint-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/sp-$CHECKPOINT_ID"' \
    --dispose-command '[ -e '"$T"'/fail ] && { echo "cannot reach the store" >&2; exit 3; }
echo "$CHECKPOINT_SAVEPOINT_PATH" >> '"$T"'/disposed' || bail "job add $J"
for i in 1 2 3 4 5; do
	http POST /jobs/$J/savepoints "{\"triggerId\":\"$(tid 710$i)\"}"
	pass
done
is "$(dbq "SELECT count(*) FROM savepoints WHERE job_id = '$J'
    AND location IS NOT NULL")" 5 "five savepoints taken"

# --- setting, and what is refused ------------------------------------------------
ctl_fails 2 "bad --keep-savepoints '0': expected a whole number from 1 to 1000000" \
    "--keep-savepoints 0: refused (the newest is kept anyway)" \
    job set "$J" --keep-savepoints 0
ctl_fails 2 "bad --keep-savepoints-for '3 days': the unit is not s, m, h or d (e.g. 12h, 30d)" \
    "--keep-savepoints-for with a space: refused" \
    job set "$J" --keep-savepoints-for '3 days'
ctl_fails 1 "job $(jid 99) not found" "a policy for an unknown job: refused" \
    job set "$(jid 99)" --keep-savepoints 3
ctl_fails 2 "bad savepoint id 'x': expected its checkpoint id or its trigger id" \
    "savepoint keep with a bad id: refused" savepoint keep "$J" x
ctl_fails 1 "job $J has no completed savepoint 99" \
    "savepoint keep of no such savepoint: refused" savepoint keep "$J" 99
ctl_fails 2 "savepoint keep: missing ID" "savepoint keep without an id" \
    savepoint keep "$J"
is "$(dbq "SELECT count(*) FROM retention")" 0 "after the refusals: no policy"

"$CTL" job set "$J" --keep-savepoints 2
ok $? "job set --keep-savepoints 2"
"$CTL" savepoint keep "$J" 2
ok $? "savepoint keep, by checkpoint id"
is "$(verdicts)" "5 kept: the newest
4 kept: among the newest
3 goes: past the newest 2
2 kept: marked kept
1 goes: past the newest 2" "retention --dry-run: each savepoint's verdict"
is "$(dbq "SELECT count(*) FROM savepoint_disposals")" 0 \
    "  --dry-run asks for nothing"

# --- a failed disposal waits for its backoff ----------------------------------
: > "$T/fail"
pass
is "$(dbq "SELECT savepoint_path || ' ' || status || ' '
    || coalesce(failure_class, '-') || ' ' || attempts || ' ' || remote_user
    || ' ' || reason FROM savepoint_disposals ORDER BY savepoint_path")" \
"file:/sp/sp-1 COMPLETED org.apache.flink.util.FlinkException 1 retention past the newest 2
file:/sp/sp-3 COMPLETED org.apache.flink.util.FlinkException 1 retention past the newest 2" \
    "the runner disposes what goes: both fail, recorded with who and why"
is "$(disposed)" "" "  nothing marked disposed"
like "$(verdicts | sed -n 3p)" "^3 disposal failed; tried again at 20[0-9-]+ [0-9:]+\$" \
    "retention --dry-run: the failure and when it is tried again"
at 30
rm -f "$T/fail"
pass
is "$(dbq "SELECT sum(attempts) FROM savepoint_disposals")" 2 \
    "within the backoff: not tried again"
at 120
pass
is "$(dbq "SELECT status || ' ' || coalesce(failure_class, '-') || ' '
    || attempts FROM savepoint_disposals ORDER BY savepoint_path")" \
    "COMPLETED - 2
COMPLETED - 2" "after the backoff: tried again, and done"
is "$(sort "$T/disposed" | tr '\n' ' ')" "file:/sp/sp-1 file:/sp/sp-3 " \
    "  the dispose command was given each path"
is "$(disposed)" "1 3 " "  those savepoints marked disposed"
like "$("$CTL" savepoints --job "$J" | grep ' 2  ')" \
    "file:/sp/sp-2 \\(kept\\)\$" "checkpointctl savepoints: the kept one marked"
pass
is "$(wc -l < "$T/disposed" | tr -d ' ')" 2 "another pass: nothing more"

# --- by age, and a savepoint no longer kept -------------------------------------------
"$CTL" job set "$J" --keep-savepoints none --keep-savepoints-for 1h
is "$(dbq "SELECT coalesce(CAST(keep_last AS TEXT), '-') || ' ' || keep_ms
    FROM retention")" "- 3600000" "--keep-savepoints none, --keep-savepoints-for 1h"
is "$(verdicts)" "5 kept: the newest
4 kept: young enough
2 kept: marked kept" "within the hour: all kept"
at 3700
is "$(verdicts | sed -n 2p)" "4 goes: older than 1h" "after the hour: the older one goes"
"$CTL" savepoint unkeep "$J" "$(tid 7102)"
ok $? "savepoint unkeep, by trigger id"
"$CTL" retention --job "$J" > "$T/retention.out"
is "$(tail -n 1 "$T/retention.out")" \
    "2 disposals asked for; the runner carries them out" \
    "retention (not a dry run): asks for the disposals"
pass
is "$(disposed)" "1 2 3 4 " "the runner carries them out; the newest stays"
is "$(dbq "SELECT count(*) FROM savepoint_disposals
    WHERE remote_user = 'retention' AND reason = 'older than 1h'")" 2 \
    "  each recorded with its reason"

http GET /metrics
is "$(printf '%s\n' "$BODY" | grep '^checkpoint_api_savepoint_disposals' |
    cut -d' ' -f2 | tr '\n' ' ')" "0 4 0 " \
    "GET /metrics: disposals in progress, completed, failed"

# --- checkpoints: the history's, with their locations ---------------------------
J3=$(jid 73)
"$CTL" job add "$J3" --command 'echo "file:/chk/$CHECKPOINT_ID"' \
    --dispose-command 'echo "$CHECKPOINT_SAVEPOINT_PATH" >> '"$T"'/chk-disposed' \
    || bail "job add $J3"
for i in 1 2 3 4; do
	post "$J3" "$(tid 730$i)" || bail "post"
	pass
done
"$CTL" job set "$J3" --keep-checkpoints 2
ok $? "job set --keep-checkpoints 2"
is "$(verdicts "$J3")" "4 kept: the newest
3 kept: among the newest
2 goes: past the newest 2
1 goes: past the newest 2" "--keep-checkpoints 2: the history's checkpoints and their verdicts"
pass
is "$(sort "$T/chk-disposed" | tr '\n' ' ')" "file:/chk/1 file:/chk/2 " \
    "the runner disposes of the two oldest through the job's dispose command"
is "$(dbq "SELECT checkpoint_id FROM checkpoint_history WHERE job_id = '$J3'
    AND disposed_ms IS NOT NULL ORDER BY checkpoint_id" | tr '\n' ' ')" "1 2 " \
    "  marked disposed in the history"
is "$(verdicts "$J3")" "4 kept: the newest
3 kept: among the newest" "  the others kept"
"$CTL" job set "$J3" --keep-checkpoints none
is "$(dbq "SELECT count(*) FROM retention WHERE job_id = '$J3'")" 0 \
    "--keep-checkpoints none: the policy gone"

# --- removal ---------------------------------------------------------------------
"$CTL" job rm "$J"
is "$(dbq "SELECT count(*) FROM retention")" 0 "job rm: its policy goes with it"
