-- wrk script for bench/listener.mjs: POSTs pre-signed webhook deliveries, one after
-- another, from a file written by the bench (one per line:
-- webhook-id TAB webhook-timestamp TAB webhook-signature TAB body). wrk cannot sign
-- (no HMAC in its Lua), so every request is formatted once in init() and request()
-- only hands out the next one; after the last it starts again from the first.
local requests = {}
local count = 0
local next_index = 0

function init(args)
  for line in io.lines(args[1]) do
    local id, timestamp, signature, body = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
    if id then
      count = count + 1
      requests[count] = wrk.format("POST", "/webhooks", {
        ["Content-Type"] = "application/json",
        ["webhook-id"] = id,
        ["webhook-timestamp"] = timestamp,
        ["webhook-signature"] = signature,
      }, body)
    end
  end
  if count == 0 then error("no requests in " .. tostring(args[1])) end
end

function request()
  next_index = next_index % count + 1
  return requests[next_index]
end
