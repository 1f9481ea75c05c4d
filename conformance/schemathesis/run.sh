#!/usr/bin/env bash
# Schemathesis judges the sandbox against spec/openapi.yaml, as shipped: every check it has, all
# four phases (examples, coverage, fuzzing, stateful over the spec's links), a fixed seed and a
# bounded number of examples (schemathesis.toml). About 40 s on two cores, plus about 20 s for the
# first install of the lock.
#
#   bash conformance/schemathesis/run.sh
#
# 1. a virtual environment in .venv (gitignored; SCHEMATHESIS_VENV puts it elsewhere), installed
#    from requirements.txt, the lock (exact versions and hashes), and reinstalled when the lock changes;
# 2. `npm run build` when dist/cli.js is missing;
# 3. the sandbox on 127.0.0.1, a free port, in memory, logs off, the default API key; then a wait
#    of at most 20 s for its banner and GET /healthz;
# 4. Schemathesis against it, with the key as `Authorization: Bearer`, every request to 127.0.0.1
#    (proxy settings are dropped), its events written to report/events.ndjson;
# 5. the sandbox stopped by its PID.
#
# Prints Schemathesis's own report and summary, then the requests sent and the checks run (counted
# from its events by summarize.py), and ends with `N passed, N failed` on a line of its own, where N
# counts (operation, check) pairs: 4 operations × 15 checks when all is well (summarize.py says
# exactly what counts). Exits with Schemathesis's status: 0 when every check passed, 1 on a failure,
# 2 when it could not run; 2 as well when the sandbox did not start.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${SCHEMATHESIS_VENV:-$here/.venv}
api_key=sandbox-api-key
report_dir=$here/report
events=$report_dir/events.ndjson

sandbox_pid=
sandbox_err=$(mktemp)
cleanup() {
  # Stop only the sandbox this script started, by its PID, and wait (bounded) for it to go.
  if [ -n "$sandbox_pid" ] && kill -0 "$sandbox_pid" 2>/dev/null; then
    kill "$sandbox_pid" 2>/dev/null
    for _ in $(seq 1 40); do kill -0 "$sandbox_pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$sandbox_pid" 2>/dev/null && kill -KILL "$sandbox_pid" 2>/dev/null
  fi
  rm -f "$sandbox_err"
}
trap cleanup EXIT
# Could not run: say so, and close with a line CI counts.
give_up() {
  echo "schemathesis: $1" >&2
  echo "0 passed, 1 failed"
  exit 2
}

# 1. Schemathesis from the lock. --no-deps: the lock lists every package, each with its hashes.
lock_sum=$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)
if [ ! -x "$venv/bin/st" ] || [ "$(cat "$venv/.lock-sha256" 2>/dev/null)" != "$lock_sum" ]; then
  echo "schemathesis: installing requirements.txt into $venv"
  { python3 -m venv --clear "$venv" &&
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes \
      -r "$here/requirements.txt" &&
    echo "$lock_sum" >"$venv/.lock-sha256"; } || give_up "could not install requirements.txt into $venv"
fi

# 2. The sandbox's build.
if [ ! -f "$root/dist/cli.js" ]; then
  (cd "$root" && npm run build --silent) || give_up "npm run build failed"
fi

# 3. The sandbox, with only the settings given here (none inherited from the caller's environment).
env -i PATH="$PATH" HOME="${HOME:-/tmp}" \
  PORT=0 HOST=127.0.0.1 DATA_FILE=:memory: LOG_LEVEL=silent API_KEYS="$api_key" \
  node "$root/dist/cli.js" >/dev/null 2>"$sandbox_err" &
sandbox_pid=$!
# The banner names the port; then GET /healthz must answer 200 (the project's own check). Both
# within 20 s.
deadline=$((SECONDS + 20))
port=
while [ -z "$port" ] && [ "$SECONDS" -lt "$deadline" ] && kill -0 "$sandbox_pid" 2>/dev/null; do
  sleep 0.1
  port=$(sed -nE 's#.*listening on http://127\.0\.0\.1:([0-9]+).*#\1#p' "$sandbox_err" | head -1)
done
[ -n "$port" ] || give_up "the sandbox did not start: $(cat "$sandbox_err")"
until env -i PATH="$PATH" PORT="$port" HOST=127.0.0.1 node "$root/dist/healthcheck.js"; do
  [ "$SECONDS" -lt "$deadline" ] || give_up "the sandbox on port $port did not answer GET /healthz within 20 s"
  sleep 0.2
done
echo "schemathesis: sandbox (PID $sandbox_pid) on http://127.0.0.1:$port/v1"

# 4. Schemathesis, from this folder: it reads schemathesis.toml and hooks.py from here.
rm -rf "$report_dir"
mkdir -p "$report_dir"
(
  cd "$here" &&
    env -u HTTP_PROXY -u HTTPS_PROXY -u ALL_PROXY -u http_proxy -u https_proxy -u all_proxy \
      "$venv/bin/st" --no-color --config-file schemathesis.toml run "$root/spec/openapi.yaml" \
      --url "http://127.0.0.1:$port/v1" \
      --header "Authorization: Bearer $api_key" \
      --report ndjson --report-ndjson-path "$events"
)
status=$?

# 5. The sandbox goes (cleanup, on exit); the counts close the output.
echo
"$venv/bin/python" "$here/summarize.py" "$events" "$status"
exit "$status"
