#!/bin/bash
# "PlacementPolicyEnforceScope Off" beside "PlacementPolicyDefaults 2026.1"
# must stop httpd at startup with a message naming both (upstream's
# oslo.policy no longer has enforce_scope). Starts a second httpd from the
# running file's configuration, on another port, and expects it to exit.
set -u
. "$(dirname "$0")/../../../scripts/lib-db.sh"
dir=$(mktemp -d "$PL_TEST_DIR/scope-off.XXXXXX")
port=$(pl_free_port)
sed -e "s|^Listen .*|Listen 127.0.0.1:$port|" \
    -e "s|^PidFile .*|PidFile \"$dir/httpd.pid\"|" \
    -e "s|^ErrorLog .*|ErrorLog \"$dir/error.log\"|" \
    -e "s|^DefaultRuntimeDir .*|DefaultRuntimeDir \"$dir\"|" \
    -e "s|^CustomLog .*||" \
    -e "s|^\( *\)PlacementPolicyDefaults 2026.1|&\n\1PlacementPolicyEnforceScope Off|" \
    "$PL_TEST_DIR/httpd.conf" >"$dir/httpd.conf"
chmod -R a+rwX "$dir"
timeout 20 "${APACHE2:-apache2}" -f "$dir/httpd.conf" -X >"$dir/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ]; then
  echo "ok httpd refuses EnforceScope Off with 2026.1 (exit $rc)"
else
  echo "not ok httpd refuses EnforceScope Off with 2026.1 (exit $rc)"
fi
if grep -q 'PL01508.*PlacementPolicyEnforceScope Off cannot be combined with PlacementPolicyDefaults 2026.1' "$dir/error.log" "$dir/out" 2>/dev/null; then
  echo "ok the startup error names both directives"
else
  echo "not ok the startup error names both directives"
  cat "$dir/error.log" "$dir/out" 2>/dev/null | tail -3 | sed 's/^/# /'
fi
