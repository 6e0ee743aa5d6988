-- get.lua — plain GETs of the URL given to wrk, reported by report.lua.
--   wrk -t2 -c32 -d10s -s get.lua http://127.0.0.1:4779/scribe-trials/api/scripts
dofile("report.lua")
