// stream.js: the endpoint of each connection to a stream server of
// nginx.conf (TCP and UDP services, SSL passthrough); see STREAM.md.
//
// njs 0.7 (Debian bookworm) runs every connection in a fresh VM: nothing
// survives from one connection to the next, so the payload is read for
// every connection (one small file) and the endpoint is chosen uniformly
// at random, which spreads connections like round robin without state.
var fs = require('fs');

function load(s) {
    try {
        return JSON.parse(fs.readFileSync(ngx.conf_prefix + 'stream.json'));
    } catch (e) {
        s.error('stream.json: ' + e.message);
        return null;
    }
}

function pick(s, what, list) {
    if (!list || list.length === 0) {
        s.warn('no endpoint for ' + what + '; the connection is closed');
        return '';
    }
    return list[Math.floor(Math.random() * list.length)];
}

// service is $kit_stream_upstream: the endpoint for "tcp/<port>" or
// "udp/<port>" of the server that took the connection.
function service(s) {
    var key = s.variables.protocol.toLowerCase() + '/' + s.variables.server_port;
    var p = load(s);
    return pick(s, key, p && p.services && p.services[key]);
}

// passthrough is $kit_passthrough_upstream: the endpoint for the
// passthrough host that the SNI of the connection names.
function passthrough(s) {
    var host = s.variables.kit_passthrough_host;
    var p = load(s);
    return pick(s, 'passthrough host ' + host, p && p.passthrough && p.passthrough[host]);
}

export default {service, passthrough};
