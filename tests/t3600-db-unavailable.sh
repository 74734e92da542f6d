#!/bin/sh
# The database unavailable (API.md, "Errors": 503): its directory missing,
# no permission, a file that is not a database, and locked past the busy
# timeout.  Every request that needs what is missing answers 503 with a JSON
# error that names the cause and never a path; the process logs the path
# and SQLite's error; and once the database is back, the same process
# answers again, without a restart.  The app runs as RUN_USER (nobody when
# the tests run as root, so that file permissions bind).

. "$(dirname "$0")/lib.sh"

for c in cgi-fcgi sqlite3; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null 2>&1 || bail "setpriv (util-linux) is missing"
fi
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC

J=0123456789abcdef0123456789abcdef
TA=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
IN_PROGRESS='{"status":{"id":"IN_PROGRESS"},"operation":null}'
CANNOT_OPEN='{"errors":["Service temporarily unavailable: the checkpoint database cannot be opened or read. Please retry."]}'
LOCKED='{"errors":["Service temporarily unavailable: the checkpoint database is locked. Please retry."]}'
LOG=$T/app.log
: > "$LOG"
share_dir "$T"

post() {
	fcgi_raw POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}" > "$T/answer"
	status_body < "$T/answer"
}
get() {
	fcgi_raw GET /jobs/$J/checkpoints/$TA > "$T/answer"
	status_body < "$T/answer"
}
# read PATH: a GET of the read-only answers (checkpoint statistics, jobs).
read_path() {
	fcgi_raw GET "$1" > "$T/answer"
	status_body < "$T/answer"
}

# unavailable CASE: POST and GET answer the 503 that names the cause, as
# JSON, without the database's path.
unavailable() {
	is "$(post)" "503 $CANNOT_OPEN" "$1: POST is 503, the database cannot be opened"
	like "$(sed -n 2p "$T/answer")" '^Content-Type: application/json; charset=UTF-8' \
	    "$1: the 503 is JSON"
	is "$(get)" "503 $CANNOT_OPEN" "$1: GET is 503, the database cannot be opened"
	case $(cat "$T/answer") in
	*"$T"*|*.db*) rc=1 ;;
	*) rc=0 ;;
	esac
	ok $rc "$1: the answer does not show the path"
	is "$(read_path /jobs/$J/checkpoints)" "503 $CANNOT_OPEN" \
	    "$1: checkpoint statistics are 503"
	is "$(read_path /jobs/overview)" "503 $CANNOT_OPEN" \
	    "$1: the job overview is 503"
}

# logged CASE TEXT: the app's log has, since the case began, a line with
# the database's path and TEXT (SQLite's error).
logged() {
	tail -n +"$MARK" "$LOG" | grep -F "$DB" | grep -qF "$2"
	ok $? "$1: the log names the path and SQLite's error ($2)"
}

# back CASE: the same process answers again, and the trigger is recorded.
back() {
	is "$(post)" "202 {\"request-id\":\"$TA\"}" "$1: back: POST is 202"
	is "$(get)" "200 $IN_PROGRESS" "$1: back: GET is 200"
	is "$(read_path /jobs/$J/checkpoints)" \
	    "404 {\"errors\":[\"Job $J not found\"]}" \
	    "$1: back: statistics answer (an unregistered job)"
	kill -0 "$APP" 2>/dev/null
	ok $? "$1: back without a restart (the same process)"
}

# begin DB: a new app process for the case, on DB.
begin() {
	if [ -n "${APP:-}" ]; then
		stop_pid "$APP"
	fi
	DB=$1
	export CHECKPOINT_DB=$DB
	MARK=$(($(wc -l < "$LOG") + 1))
	start_app as_run_user 2>>"$LOG"
}

# === the database's directory missing =========================================
begin "$T/gone/checkpoints.db"
unavailable "missing directory"
logged "missing directory" "unable to open database file"
share_dir "$T/gone"
back "missing directory"

# === no permission ==============================================================
# A directory the app's user may not enter: as root, root's own with mode
# 0700 (the app runs as nobody); otherwise mode 0.
mkdir "$T/private"
"$CTL" --db "$T/private/checkpoints.db" init > /dev/null || bail "checkpointctl init"
if [ "$(id -u)" -eq 0 ]; then
	chmod 700 "$T/private"
else
	chmod 0 "$T/private"
fi
begin "$T/private/checkpoints.db"
unavailable "no permission"
logged "no permission" "unable to open database file"
if [ "$(id -u)" -eq 0 ]; then
	chown -R "$RUN_USER:$RUN_GROUP" "$T/private"
else
	chmod 700 "$T/private"
fi
back "no permission"

# === a file that is not a database ==============================================
share_dir "$T/junk"
yes 'this is not an SQLite database' | head -n 100 > "$T/junk/checkpoints.db"
begin "$T/junk/checkpoints.db"
unavailable "not a database"
logged "not a database" "file is not a database"
# The operator puts a good database in its place (here a new one).
"$CTL" --db "$T/junk/new.db" init > /dev/null || bail "checkpointctl init"
if [ "$(id -u)" -eq 0 ]; then
	chown "$RUN_USER:$RUN_GROUP" "$T/junk/new.db"
fi
mv "$T/junk/new.db" "$T/junk/checkpoints.db"
back "not a database"

# === locked past the busy timeout ===============================================
export CHECKPOINT_BUSY_TIMEOUT=300ms
share_dir "$T/busy"
begin "$T/busy/checkpoints.db"
is "$(post)" "202 {\"request-id\":\"$TA\"}" "locked: POST before the lock"
TB=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
hold_lock 2
fcgi_raw POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\"}" > "$T/answer"
is "$(status_body < "$T/answer")" "503 $LOCKED" "locked: POST is 503, the lock named"
is "$(get)" "200 $IN_PROGRESS" "locked: GET still answers (WAL readers are not blocked)"
is "$(read_path /jobs)" '200 {"jobs":[]}' "locked: GET /jobs still answers"
logged "locked" "database is locked"
wait "$LOCKER"
stop_pid "$LOCKER"
is "$(sql "SELECT count(*) FROM triggers WHERE trigger_id='$TB'")" 0 \
    "locked: the 503 left nothing behind"
fcgi_raw POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\"}" > "$T/answer"
is "$(status_body < "$T/answer")" "202 {\"request-id\":\"$TB\"}" \
    "locked: back: the retried POST is 202"
kill -0 "$APP" 2>/dev/null
ok $? "locked: back without a restart (the same process)"
stop_pid "$APP"

done_testing
