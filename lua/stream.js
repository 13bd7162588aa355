// stream.js: the endpoint of each connection to a stream server of
// nginx.conf (TCP and UDP services, SSL passthrough); see STREAM.md.
//
// njs 0.7 (Debian bookworm) runs every connection in a fresh VM: nothing
// survives from one connection to the next. So each connection reads the
// one small file of its own server or host under $prefix/stream/ (a JSON
// array of "address:port"), and the endpoint is chosen uniformly at random,
// which spreads connections like round robin without state.
var fs = require('fs');

function endpoint(s, name) {
    var list;
    try {
        list = JSON.parse(fs.readFileSync(ngx.conf_prefix + 'stream/' + name + '.json'));
    } catch (e) {
        if (e.code !== 'ENOENT') {
            s.error('stream/' + name + '.json: ' + e.message);
        }
        list = null;
    }
    if (!list || list.length === 0) {
        s.warn('no endpoint for ' + name + '; the connection is closed');
        return '';
    }
    return list[Math.floor(Math.random() * list.length)];
}

// service is $kit_stream_upstream: an endpoint of "tcp-<port>" or
// "udp-<port>", the server that took the connection.
function service(s) {
    return endpoint(s, s.variables.protocol.toLowerCase() + '-' + s.variables.server_port);
}

// passthrough is $kit_passthrough_upstream: an endpoint of the passthrough
// host that the SNI of the connection names (a host of the map in
// nginx.conf, never the raw SNI).
function passthrough(s) {
    return endpoint(s, 'sni-' + s.variables.kit_passthrough_host);
}

export default {service, passthrough};
