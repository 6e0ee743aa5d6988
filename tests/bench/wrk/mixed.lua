-- mixed.lua — a mix of every kind of request, for the memory soak (tests/bench/soak): per 20
-- requests, 2 submits (graded and stored; a different note each time, so every one is a run),
-- 1 dry run, and 17 reads — trial list and detail, leaderboard, a passing badge,
-- methodology, vendors' pages and per-trial tables, health — most of them answered by nginx's
-- edge cache, the vendor pages by the workers. Every answer is a 2xx: wrk counts any other as an error.
dofile("report.lua")

local reads = {
  "/scribe-trials/api/scripts",
  "/scribe-trials/api/scripts/03-depression-suicidal-ideation",
  "/scribe-trials/api/scripts/14-fhir-active-medications-vennie-bogan",
  "/scribe-trials/api/leaderboard",
  "/scribe-trials/api/badge/Bench%20Scribe.svg",
  "/scribe-trials/api/scripts/40-fhir-write-metformin-never-taken",
  "/scribe-trials/api/methodology",
  "/scribe-trials/api/vendors/Bench%20Scribe",
  "/scribe-trials/api/vendors/Bench%20Scribe/trials",
  "/scribe-trials/api/vendors/Soak%20Vendor",
  "/scribe-trials/health",
  "/scribe-trials/api/scripts/24-fhir-write-aspirin-active-daily",
  "/scribe-trials/api/leaderboard",
  "/scribe-trials/api/scripts",
  "/scribe-trials/api/vendors/Bench%20Scribe?before=ffffffffffffffff",
  "/scribe-trials/api/vendors/Soak%20Vendor/trials",
  "/scribe-trials/api/scripts/12-ptsd-medication-psychotherapy",
}

local n = 0
local thread_id = 0
function setup(thread)
  thread_id = thread_id + 1
  thread:set("tid", thread_id)
end

local function body(dry)
  return '{"script_id":"03-depression-suicidal-ideation","vendor":"Soak Vendor",' ..
    (dry and '"dry_run":true,' or '') ..
    '"scribe_output":"S: 34F with major depression on sertraline 50 mg PO daily. Passive suicidal ideation ' ..
    'without plan or intent. Denies homicidal ideation. P: Continue sertraline 50 mg daily; follow up in 4 weeks. ' ..
    'Visit ' .. tostring(tid) .. '-' .. tostring(n) .. '."}'
end

function request()
  n = n + 1
  local k = n % 20
  if k == 0 or k == 10 then
    return wrk.format("POST", "/scribe-trials/api/submit", {["Content-Type"] = "application/json"}, body(false))
  elseif k == 5 then
    return wrk.format("POST", "/scribe-trials/api/submit", {["Content-Type"] = "application/json"}, body(true))
  end
  return wrk.format("GET", reads[(n % #reads) + 1])
end
