#!/bin/sh
# Entrypoint for every Bursar image. APP (control | ledger | webhook-worker)
# comes from the image (build arg) or the environment.
#
#   serve (default)     run the app's server, dist/apps/$APP/src/main.js
#   migrate             run dist/apps/$APP/src/migrate.js; exits 0 when done
#   healthcheck [path]  GET http://127.0.0.1:<app port><path> (default /healthz);
#                       exit 0 on 2xx, used by the image HEALTHCHECK
#   anything else       exec'd as is (e.g. `node -v`, `sh`)
#
# `exec` everywhere so node is PID 1 and receives SIGTERM directly; the apps
# handle it for graceful shutdown.
set -eu

APP="${APP:-}"
case "$APP" in
  control | ledger | webhook-worker) ;;
  *)
    echo "bursar-entrypoint: APP must be control, ledger or webhook-worker (got '${APP}')" >&2
    exit 64
    ;;
esac

app_dir="/app/dist/apps/${APP}/src"

app_port() {
  case "$APP" in
    control) echo "${CONTROL_PORT:-3000}" ;;
    ledger) echo "${LEDGER_PORT:-3001}" ;;
    webhook-worker) echo "${WORKER_PORT:-3002}" ;;
  esac
}

cmd="${1:-serve}"
case "$cmd" in
  serve | start)
    exec node "${app_dir}/main.js"
    ;;
  migrate)
    if [ ! -f "${app_dir}/migrate.js" ]; then
      # The worker owns no schema; succeed so a generic "migrate" step stays harmless.
      echo "bursar-entrypoint: ${APP} has no migrations, nothing to do"
      exit 0
    fi
    exec node "${app_dir}/migrate.js"
    ;;
  healthcheck)
    # 127.0.0.1, not localhost: Node may resolve localhost to ::1 first.
    exec node -e '
      const [port, path] = process.argv.slice(1);
      fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(4000) })
        .then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1));
    ' "$(app_port)" "${2:-/healthz}"
    ;;
  *)
    exec "$@"
    ;;
esac
