-- wrk: POST /jobs/<job>/checkpoints with a fresh triggerId per request.
-- Arguments: <job id> <8-hex run tag>.
local job, tag
local n = 0

function init(args)
	job = args[1]
	tag = args[2]
end

function request()
	n = n + 1
	local body = string.format('{"triggerId":"%s%024x"}', tag, n)
	return wrk.format("POST", "/jobs/" .. job .. "/checkpoints",
	    { ["Content-Type"] = "application/json" }, body)
end
