// The 2.x client (@modelcontextprotocol/client) against the server under test.
import { kinds } from "../lib/connect.mjs";
import { suite } from "../lib/suite.mjs";

suite("sdk2 streamable HTTP", kinds["sdk2 streamable HTTP"]);
suite("sdk2 streamable HTTP, 2026-07-28", kinds["sdk2 streamable HTTP, 2026-07-28"], { modern: true });
suite("sdk2 legacy SSE", kinds["sdk2 legacy SSE"]);
