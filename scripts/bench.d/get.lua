-- wrk: GET the status of existing triggers, chosen at random.
-- Arguments: <job id> <count>; the triggers are printf('%032x', 1..count).
local job, count

function init(args)
	job = args[1]
	count = tonumber(args[2])
	math.randomseed(os.time())
end

function request()
	return wrk.format("GET", string.format("/jobs/%s/checkpoints/%032x",
	    job, math.random(count)))
end
