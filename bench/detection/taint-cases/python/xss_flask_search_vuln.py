# ax-bench: vulnerable CWE-79 — Flask search page .format()s the raw query into an HTML response
from flask import Flask, make_response, request

app = Flask(__name__)

PAGE = """<!doctype html>
<html>
<head><title>Search</title></head>
<body>
<form action="/search"><input name="q" autofocus></form>
<p>No results for <strong>{query}</strong>.</p>
</body>
</html>"""


@app.route("/search")
def search():
    query = request.args.get("q", "")
    body = PAGE.format(query=query)
    resp = make_response(body)  # ax-bench: sink
    resp.headers["Content-Type"] = "text/html; charset=utf-8"
    return resp
