# ax-bench: vulnerable CWE-918 — Flask feed preview fetches every URL in the query string's list
import feedparser
import requests
from flask import Flask, jsonify, request

app = Flask(__name__)
MAX_FEEDS = 5


@app.route("/feeds/preview")
def preview_feeds():
    urls = request.args.getlist("url")
    items = []
    for url in urls[:MAX_FEEDS]:
        resp = requests.get(url, timeout=5, headers={"User-Agent": "feed-preview/1.0"})  # ax-bench: sink
        if resp.status_code != 200:
            continue
        feed = feedparser.parse(resp.content)
        items.extend({"feed": url, "title": e.get("title"), "link": e.get("link")} for e in feed.entries[:10])
    return jsonify(items)
