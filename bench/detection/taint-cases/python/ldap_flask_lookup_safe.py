# ax-bench: safe CWE-90 — Flask directory lookup escapes the user name with escape_filter_chars before building the LDAP filter
import os

from flask import Flask, jsonify, request
from ldap3 import Connection, Server
from ldap3.utils.conv import escape_filter_chars

app = Flask(__name__)
SERVER = Server("ldaps://ldap.corp.example", use_ssl=True)
BASE_DN = "ou=people,dc=corp,dc=example"


@app.route("/directory/lookup")
def lookup():
    username = escape_filter_chars(request.args.get("user", ""))
    conn = Connection(SERVER, user=os.environ["LDAP_BIND_DN"], password=os.environ["LDAP_BIND_PASSWORD"], auto_bind=True)
    search_filter = f"(&(objectClass=person)(!(employeeType=contractor))(uid={username}))"
    conn.search(BASE_DN, search_filter, attributes=["cn", "mail", "telephoneNumber"])  # ax-bench: sink
    people = [{"name": str(e.cn), "mail": str(e.mail), "phone": str(e.telephoneNumber)} for e in conn.entries]
    conn.unbind()
    return jsonify(people)
