#!/bin/bash
# "PlacementPolicyEnforceScope Off" beside "PlacementPolicyDefaults 2026.1"
# (t/api/policy-2026-scope-off.yaml): accepted, as oslo.policy 4.4.0 to
# 5.0.0 (placement 2024.2 to 2026.1) accept enforce_scope = False, with a
# startup warning (PL01508) where oslo.config warns that enforce_scope is
# deprecated for removal. Run on the file's own server, once its tests
# (a system-scoped admin allowed where policy-2026.yaml refuses it) are
# done: the server answers, and its error log has the warning, at warn
# level, for the <Location> that has the lines and for nothing else.
set -u
log=$PL_TEST_DIR/error.log
code=$(curl -s -o /dev/null -w '%{http_code}' "$PL_API_URL/")
if [ "$code" = 200 ]; then
  echo "ok the server runs with EnforceScope Off beside 2026.1"
else
  echo "not ok the server runs with EnforceScope Off beside 2026.1 (GET / answered $code)"
fi
warned=$(grep -c '\[placement:warn\].*PL01508: /placement: PlacementPolicyEnforceScope Off beside PlacementPolicyDefaults 2026.1 is deprecated; scope is not enforced' "$log")
if [ "$warned" -gt 0 ]; then
  echo "ok the startup warning names the location and says scope is not enforced"
else
  echo "not ok the startup warning names the location and says scope is not enforced"
  grep PL01508 "$log" | tail -3 | sed 's/^/# /'
fi
others=$(grep PL01508 "$log" | grep -v -c '\[placement:warn\].*PL01508: /placement: ')
if [ "$others" = 0 ]; then
  echo "ok no other section repeats the warning"
else
  echo "not ok no other section repeats the warning ($others lines)"
  grep PL01508 "$log" | grep -v 'PL01508: /placement: ' | tail -3 | sed 's/^/# /'
fi
