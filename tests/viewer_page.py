"""Reading a run viewer page (physflow run --html) back: its data JSON and its frames' blobs decoded as the page's
script does (layout: output/html_frame.c). Shared by tests/test_html.py and tests/test_html_browser.py."""
import base64
import json
import struct

DATA_TAG = '<script id="pf-data" type="application/json">'


def page_data(path):
    """The JSON data of the page."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    i = text.index(DATA_TAG) + len(DATA_TAG)
    return json.loads(text[i:text.index("</script>", i)])


def decode_frame(data, k):
    """Frame k: step, worker[], group[], visible[], positions per piece (lists of xyz), contacts, spans."""
    f = data["frames"][k]
    b = base64.b64decode(f["blob"])
    n, pieces = data["objects"], data["pieces"]
    o = 0
    worker = list(struct.unpack_from(f"<{n}i", b, o)); o += 4 * n
    group = list(struct.unpack_from(f"<{n}i", b, o)); o += 4 * n
    visible = list(b[o:o + len(pieces)]); o += len(pieces)
    box = f["box"]

    def point(q):
        return [box[a] + q[a] / 65535 * (box[3 + a] - box[a]) for a in range(3)]

    positions = []
    for p in pieces:
        q = struct.unpack_from(f"<{3 * p['vertices']}H", b, o); o += 6 * p["vertices"]
        positions.append([point(q[3 * i:3 * i + 3]) for i in range(p["vertices"])])
    c = f["contacts"]
    q = struct.unpack_from(f"<{3 * c}H", b, o); o += 6 * c
    contacts = [point(q[3 * i:3 * i + 3]) for i in range(c)]
    normals = struct.unpack_from(f"<{3 * c}b", b, o); o += 3 * c
    spans = [struct.unpack_from("<ffHBB", b, o + 12 * i) for i in range(f["spans"])]
    o += 12 * f["spans"]
    return {"step": f["step"], "worker": worker, "group": group, "visible": visible, "positions": positions,
            "contacts": contacts, "normals": normals, "spans": spans, "bytes_left": len(b) - o}
