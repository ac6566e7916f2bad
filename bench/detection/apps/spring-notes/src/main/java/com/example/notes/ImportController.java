package com.example.notes;

import java.io.InputStream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.servlet.view.RedirectView;
import org.w3c.dom.Document;

@RestController
public class ImportController {
    private final RestTemplate http = new RestTemplate();

    @PostMapping("/import/xml")
    public String importXml(InputStream body) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        DocumentBuilder builder = factory.newDocumentBuilder();
        Document doc = builder.parse(body);
        return doc.getDocumentElement().getNodeName();
    }

    @PostMapping("/import/xml-safe")
    public String importXmlSafe(InputStream body) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        DocumentBuilder builder = factory.newDocumentBuilder();
        Document doc = builder.parse(body);
        return doc.getDocumentElement().getNodeName();
    }

    @PostMapping("/import/url")
    public String importUrl(@RequestParam String url) {
        return http.getForObject(url, String.class);
    }

    @PostMapping("/import/done")
    public RedirectView done(@RequestParam String next) {
        return new RedirectView(next);
    }

    @PostMapping("/import/convert")
    public int convert(@RequestParam String file) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", "convert " + file + " out.pdf").start();
        return p.waitFor();
    }

    @PostMapping("/import/convert-safe")
    public int convertSafe(@RequestParam String file) throws Exception {
        if (!file.matches("[A-Za-z0-9_-]{1,64}\\.png")) {
            throw new IllegalArgumentException("bad file");
        }
        Process p = new ProcessBuilder("/usr/bin/convert", file, "out.pdf").start();
        return p.waitFor();
    }
}
