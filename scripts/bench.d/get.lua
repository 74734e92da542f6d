-- wrk: GET the status of existing triggers, chosen at random.
-- Arguments: <job id> <count> [<kind>]: checkpoints (the default) or
-- savepoints; the triggers are printf('%032x', 1..count).
local job, count, kind

function init(args)
	job = args[1]
	count = tonumber(args[2])
	kind = args[3] or "checkpoints"
	math.randomseed(os.time())
end

function request()
	return wrk.format("GET", string.format("/jobs/%s/%s/%032x",
	    job, kind, math.random(count)))
end
