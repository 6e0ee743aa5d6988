-- report.lua — wrk's done() hook shared by the scripts here: one machine-readable line,
--   RESULT <requests/s> <p50 ms> <p99 ms> <errors> <requests>
-- where errors counts socket errors, timeouts and non-2xx/3xx answers. Loaded with
-- dofile() from get.lua and submit.lua (run wrk from this directory).
function done(summary, latency, requests)
  local e = summary.errors
  local errors = e.connect + e.read + e.write + e.timeout + e.status
  io.write(string.format("RESULT %.1f %.3f %.3f %d %d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    errors, summary.requests))
end
