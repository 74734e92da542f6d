// scripts/bench.d/alternative.js: the obvious alternative to checkpoint-api,
// as a team would write it instead, for scripts/bench to measure beside the
// app (performance issue 6): the same two endpoints on Node.js 20 with
// node:http and better-sqlite3 12, one process, WAL, synchronous=FULL, one
// transaction (and one fsync) per POST, on the app's own schema.
//
//   node alternative.js DATABASE PORT
//
// DATABASE must exist with the app's schema (checkpointctl init).  It
// answers what the app answers for the requests the bench sends, byte for
// byte (API.md); it leaves out what a first version would: retention,
// jobs' checkpoint types, the body size limit, percent-decoding.
'use strict';

const crypto = require('node:crypto');
const http = require('node:http');
const Database = require('better-sqlite3');

const [dbPath, port] = process.argv.slice(2);
if (!dbPath || !port) {
	console.error('usage: node alternative.js DATABASE PORT');
	process.exit(2);
}
const db = new Database(dbPath, { fileMustExist: true });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
const insert = db.prepare(`INSERT INTO triggers
	(job_id, trigger_id, requested_type, created_ms) VALUES (?, ?, ?, ?)
	ON CONFLICT (job_id, trigger_id) DO NOTHING`);
const select = db.prepare(`SELECT status, checkpoint_id, failure_class,
	failure_trace, failure_throwable FROM triggers
	WHERE job_id = ? AND trigger_id = ?`);

const HEX = /^[0-9a-fA-F]{32}$/;
const TYPES = new Set(['CONFIGURED', 'FULL', 'INCREMENTAL']);
const BAD_BODY = 'Request did not match expected format CheckpointTriggerRequestBody.';

function send(res, code, body, extra) {
	res.writeHead(code, {
		'Content-Type': 'application/json; charset=UTF-8',
		'Access-Control-Allow-Origin': '*',
		'Content-Length': Buffer.byteLength(body),
		...extra,
	});
	res.end(body);
}

function error(res, code, message, extra) {
	send(res, code, JSON.stringify({ errors: [message] }), extra);
}

function badParam(res, name, value) {
	error(res, 400, 'Bad request, could not parse parameters: Cannot resolve ' +
	    `path parameter (${name}) from value "${value}".`);
}

function trigger(res, job, text) {
	let body;
	try {
		body = text === '' ? {} : JSON.parse(text);
	} catch {
		return error(res, 400, BAD_BODY);
	}
	if (body === null || typeof body !== 'object' || Array.isArray(body))
		return error(res, 400, BAD_BODY);
	const type = body.checkpointType ?? 'CONFIGURED';
	let tid = body.triggerId ?? crypto.randomBytes(16).toString('hex');
	if (!TYPES.has(type) || typeof tid !== 'string' || !HEX.test(tid))
		return error(res, 400, BAD_BODY);
	if (!HEX.test(job))
		return badParam(res, 'jobid', job);
	tid = tid.toLowerCase();
	insert.run(job.toLowerCase(), tid, type, Date.now());
	send(res, 202, JSON.stringify({ 'request-id': tid }));
}

function status(res, job, tid) {
	if (!HEX.test(job))
		return badParam(res, 'jobid', job);
	if (!HEX.test(tid))
		return badParam(res, 'triggerid', tid);
	job = job.toLowerCase();
	tid = tid.toLowerCase();
	const row = select.get(job, tid);
	if (!row)
		return error(res, 404, 'There is no checkpoint operation with ' +
		    `triggerId=${tid} for job ${job}.`);
	let operation = null;
	if (row.status === 'COMPLETED')
		operation = row.failure_class === null ?
		    { checkpointId: row.checkpoint_id } :
		    { failureCause: { class: row.failure_class,
		        'stack-trace': row.failure_trace,
		        'serialized-throwable': row.failure_throwable } };
	send(res, 200, JSON.stringify({ status: { id: row.status }, operation }));
}

const server = http.createServer((req, res) => {
	const path = req.url.replace(/\?.*/, '').replace(/^\/v1\//, '/')
	    .replace(/(.)\/$/, '$1');
	const p = path.split('/');
	if (p.length < 4 || p.length > 5 || p[0] !== '' || p[1] !== 'jobs' ||
	    p[3] !== 'checkpoints')
		return error(res, 404, `Not found: ${req.url}`);
	const want = p.length === 4 ? 'POST' : 'GET';
	if (req.method !== want)
		return error(res, 405, `Method ${req.method} is not allowed here; see the Allow header.`,
		    { Allow: want });
	if (want === 'GET') {
		req.resume();
		return status(res, p[2], p[4]);
	}
	let text = '';
	req.setEncoding('utf8');
	req.on('data', (chunk) => { text += chunk; });
	req.on('end', () => {
		try {
			trigger(res, p[2], text);
		} catch (e) {
			console.error(e.message);
			error(res, 500, 'Internal server error.');
		}
	});
});
server.keepAliveTimeout = 60000;
server.listen(Number(port), '127.0.0.1');
process.on('SIGTERM', () => {
	server.close();
	server.closeAllConnections();
	db.close();
	process.exit(0);
});
