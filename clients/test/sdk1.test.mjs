// The official TypeScript SDK 1.x against the server under test.
import { kinds } from "../lib/connect.mjs";
import { suite } from "../lib/suite.mjs";

suite("sdk1 streamable HTTP", kinds["sdk1 streamable HTTP"]);
suite("sdk1 legacy SSE", kinds["sdk1 legacy SSE"]);
