/**
 * A password flood, as its own process so that its work is not the measuring test's: CONCURRENCY
 * requests at once, each with a wrong password never sent before (so no remembered answer absorbs it),
 * each sent again once it is answered and the next second has begun (waves of CONCURRENCY a second:
 * wrong passwords, not a flood of requests as such, which any cheap path such as /status would serve),
 * from LOCAL_ADDRESS (a loopback address other than the test's, so the grid sees another client).
 * Prints "flooding" at the first answer; on SIGTERM prints the answers by status as one JSON line and exits.
 *
 *   node test/support/password-flood.mjs URL USER CONCURRENCY LOCAL_ADDRESS
 */
import http from 'node:http';

const [url, user, concurrency, localAddress] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(concurrency) });
const answers = {};
let sent = 0;
let announced = false;
const WAVE_MS = 1000;
const startedAt = Date.now();

/** Sends again at the start of the next wave. */
function again() {
  const elapsed = Date.now() - startedAt;
  setTimeout(send, WAVE_MS - (elapsed % WAVE_MS));
}

function count(key) {
  answers[key] = (answers[key] ?? 0) + 1;
  if (!announced) {
    announced = true;
    console.log('flooding');
  }
}

function send() {
  const authorization = `Basic ${Buffer.from(`${user}:wrong-${++sent}`).toString('base64')}`;
  const request = http.get(
    `${url}/quota`,
    { agent, localAddress, headers: { authorization } },
    (response) => {
      response.resume();
      response.on('end', () => {
        count(response.statusCode);
        again();
      });
    },
  );
  request.on('error', () => {
    count('error');
    again();
  });
}

process.on('SIGTERM', () => {
  console.log(JSON.stringify(answers));
  process.exit(0);
});
for (let i = 0; i < Number(concurrency); i++) send();
