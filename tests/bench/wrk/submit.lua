-- submit.lua — POST /scribe-trials/api/submit with a realistic note, reported by report.lua.
-- Every request is graded and stored: run it against a throw-away database and with the
-- nginx rate limit raised (tests/bench/wrk/run does both).
--   wrk -t2 -c32 -d10s -s submit.lua http://127.0.0.1:4779/scribe-trials/api/submit
dofile("report.lua")

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"script_id":"03-depression-suicidal-ideation","vendor":"Bench Submit",' ..
  '"scribe_output":"S: 34F with major depression on sertraline 50 mg PO daily, taken consistently. ' ..
  'Reports passive suicidal ideation without plan or intent, and initial and terminal insomnia. ' ..
  'Denies homicidal ideation, suicide attempts and access to firearms. ' ..
  'A: Depression, partially responsive. P: Continue sertraline 50 mg daily; safety plan reviewed; ' ..
  'follow up in 4 weeks."}'
