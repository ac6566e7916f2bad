/**
 * Configuration sinks gated on input (typestate.ts, config-states.ts): an XML parser, a YAML
 * loader or a template environment configured unsafely is reported at the parse/load/render
 * call when its input is tainted; configured safely before use, or given constant input, it
 * is not.
 */
import { hits, policyTwins } from "../test/policy-twins";

const JAVA_XXE = { rule: "java-taint-xxe", cwe: "CWE-611" };
const PY_XXE = { rule: "py-taint-xxe", cwe: "CWE-611" };

policyTwins("XML parsers", [
  {
    name: "DocumentBuilderFactory without disallow-doctype-decl",
    lang: "java",
    vuln: `
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setNamespaceAware(true);
      DocumentBuilder builder = factory.newDocumentBuilder();
      org.w3c.dom.Document order = builder.parse(request.getInputStream()); // SINK
    `,
    safe: `
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      DocumentBuilder builder = factory.newDocumentBuilder();
      org.w3c.dom.Document order = builder.parse(request.getInputStream());
    `,
    expect: [JAVA_XXE],
  },
  {
    name: "an unsafe DocumentBuilder is not reported for a constant document",
    lang: "java",
    vuln: `
      DocumentBuilder builder = DocumentBuilderFactory.newInstance().newDocumentBuilder();
      String xml = request.getParameter("xml");
      builder.parse(new InputSource(new StringReader(xml))); // SINK
    `,
    safe: `
      DocumentBuilder builder = DocumentBuilderFactory.newInstance().newDocumentBuilder();
      builder.parse(new File("WEB-INF/layout.xml"));
    `,
    expect: [JAVA_XXE],
  },
  {
    name: "SAXParserFactory with external general entities off",
    lang: "java",
    vuln: `
      javax.xml.parsers.SAXParserFactory spf = javax.xml.parsers.SAXParserFactory.newInstance();
      javax.xml.parsers.SAXParser parser = spf.newSAXParser();
      parser.parse(request.getInputStream(), new org.xml.sax.helpers.DefaultHandler()); // SINK
    `,
    safe: `
      javax.xml.parsers.SAXParserFactory spf = javax.xml.parsers.SAXParserFactory.newInstance();
      spf.setFeature("http://xml.org/sax/features/external-general-entities", false);
      javax.xml.parsers.SAXParser parser = spf.newSAXParser();
      parser.parse(request.getInputStream(), new org.xml.sax.helpers.DefaultHandler());
    `,
    expect: [JAVA_XXE],
  },
  {
    name: "XMLInputFactory without SUPPORT_DTD false",
    lang: "java",
    vuln: `
      XMLInputFactory xif = XMLInputFactory.newInstance();
      XMLStreamReader events = xif.createXMLStreamReader(request.getReader()); // SINK
    `,
    safe: `
      XMLInputFactory xif = XMLInputFactory.newInstance();
      xif.setProperty(XMLInputFactory.SUPPORT_DTD, false);
      XMLStreamReader events = xif.createXMLStreamReader(request.getReader());
    `,
    expect: [JAVA_XXE],
  },
  {
    name: "lxml XMLParser(resolve_entities=True)",
    lang: "python",
    vuln: `
      from flask import request
      from lxml import etree

      def upload():
          parser = etree.XMLParser(resolve_entities=True)
          tree = etree.fromstring(request.data, parser)  # SINK
          return tree.findtext("name")
    `,
    safe: `
      from flask import request
      from lxml import etree

      def upload():
          parser = etree.XMLParser(resolve_entities=False)
          tree = etree.fromstring(request.data, parser)
          return tree.findtext("name")
    `,
    expect: [PY_XXE],
  },
  {
    name: "xml.sax with feature_external_ges turned on",
    lang: "python",
    vuln: `
      import xml.sax
      from xml.sax.handler import feature_external_ges
      from flask import request

      def feed():
          reader = xml.sax.make_parser()
          reader.setFeature(feature_external_ges, True)
          reader.parse(request.files["feed"])  # SINK
    `,
    safe: `
      import xml.sax
      from xml.sax.handler import feature_external_ges
      from flask import request

      def feed():
          reader = xml.sax.make_parser()
          reader.setFeature(feature_external_ges, False)
          reader.parse(request.files["feed"])
    `,
    expect: [{ rule: "py-taint-xxe-sax", cwe: "CWE-611" }],
  },
  {
    name: "libxmljs parseXml with noent",
    lang: "javascript",
    vuln: `
      const libxmljs = require("libxmljs");
      app.post("/import", (req, res) => {
        const doc = libxmljs.parseXml(req.body.xml, { noent: true }); // SINK
        res.json({ root: doc.root().name() });
      });
    `,
    safe: `
      const libxmljs = require("libxmljs");
      app.post("/import", (req, res) => {
        const doc = libxmljs.parseXml(req.body.xml, { noent: false });
        res.json({ root: doc.root().name() });
      });
    `,
    expect: [{ rule: "js-taint-xxe", cwe: "CWE-611" }],
  },
]);

policyTwins("YAML loaders", [
  {
    name: "Java serialization reads its input, not its configuration",
    lang: "java",
    vuln: `
      ObjectInputStream in = new ObjectInputStream(request.getInputStream()); // SINK
      Object cart = in.readObject();
    `,
    safe: `
      ObjectInputStream in = new ObjectInputStream(new FileInputStream("cache/cart.bin"));
      Object cart = in.readObject();
    `,
    expect: [{ rule: "java-taint-deserialization", cwe: "CWE-502" }],
  },
  {
    name: "SnakeYAML without SafeConstructor",
    lang: "java",
    vuln: `
      org.yaml.snakeyaml.Yaml yaml = new org.yaml.snakeyaml.Yaml();
      Object settings = yaml.load(request.getParameter("settings")); // SINK
    `,
    safe: `
      org.yaml.snakeyaml.Yaml yaml = new org.yaml.snakeyaml.Yaml(new SafeConstructor(new LoaderOptions()));
      Object settings = yaml.load(request.getParameter("settings"));
    `,
    expect: [{ rule: "java-taint-deserialization-yaml", cwe: "CWE-502" }],
  },
  {
    name: "PyYAML load with yaml.Loader",
    lang: "python",
    vuln: `
      import yaml
      from flask import request

      def settings():
          return yaml.load(request.data, Loader=yaml.Loader)  # SINK
    `,
    safe: `
      import yaml
      from flask import request

      def settings():
          return yaml.load(request.data, Loader=yaml.SafeLoader)
    `,
    expect: [{ rule: "py-taint-deserialization-yaml", cwe: "CWE-502" }],
  },
  {
    name: "js-yaml load with the full schema",
    lang: "javascript",
    vuln: `
      const yaml = require("js-yaml");
      app.post("/settings", (req, res) => {
        const settings = yaml.load(req.body.doc, { schema: yaml.DEFAULT_FULL_SCHEMA }); // SINK
        res.json(settings);
      });
    `,
    safe: `
      const yaml = require("js-yaml");
      app.post("/settings", (req, res) => {
        const settings = yaml.load(req.body.doc);
        res.json(settings);
      });
    `,
    expect: [{ rule: "js-taint-deserialization-yaml", cwe: "CWE-502" }],
  },
]);

policyTwins("template environments", [
  {
    name: "jinja2 Environment(autoescape=False) renders input",
    lang: "python",
    vuln: `
      import jinja2
      from flask import request

      env = jinja2.Environment(autoescape=False)

      def greet():
          page = env.from_string("<p>Hello {{ name }}</p>")
          return page.render(name=request.args.get("name"))  # SINK
    `,
    safe: `
      import jinja2
      from flask import request

      env = jinja2.Environment(autoescape=True)

      def greet():
          page = env.from_string("<p>Hello {{ name }}</p>")
          return page.render(name=request.args.get("name"))
    `,
    expect: [{ rule: "py-taint-xss-template", cwe: "CWE-79" }],
  },
]);

describe("typestate: where the configuration is not the finding", () => {
  it("does not report an unsafe factory that never parses tainted input", () => {
    const src = `
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      DocumentBuilder builder = factory.newDocumentBuilder();
      String name = request.getParameter("name");
      response.setContentType("text/plain");
    `;
    expect(hits("java", src)).toEqual([]);
  });

  it("keeps the unsafe state when only one branch configures the factory", () => {
    const src = `
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      if (request.getParameter("strict") != null) {
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      }
      factory.newDocumentBuilder().parse(request.getInputStream()); // SINK
    `;
    expect(hits("java", src).map((h) => h.rule)).toEqual(["java-taint-xxe"]);
  });
});
