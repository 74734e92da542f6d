-- wrk: POST /jobs/<job>/<kind> with a fresh triggerId per request.
-- Arguments: <job id> <8-hex run tag> [<kind> [spread]]: kind is
-- checkpoints (the default), or savepoints, with a target directory;
-- with "spread" each request names a job of its own (its triggerId), so
-- that no job's queue reaches CHECKPOINT_MAX_QUEUED.
local job, tag, kind, extra, spread
local n = 0

function init(args)
	job = args[1]
	tag = args[2]
	kind = args[3] or "checkpoints"
	spread = args[4] == "spread"
	extra = kind == "savepoints" and ',"target-directory":"file:/bench"' or ""
end

function request()
	n = n + 1
	local id = string.format("%s%024x", tag, n)
	local body = string.format('{"triggerId":"%s"%s}', id, extra)
	return wrk.format("POST", "/jobs/" .. (spread and id or job) .. "/" .. kind,
	    { ["Content-Type"] = "application/json" }, body)
end
