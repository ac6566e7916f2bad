package org.maplecare.clinic.api;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.beans.XMLDecoder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.SAXParser;
import javax.xml.parsers.SAXParserFactory;
import org.xml.sax.Attributes;
import org.xml.sax.helpers.DefaultHandler;

@Path("/labs")
@Produces(MediaType.APPLICATION_JSON)
public class LabResultsResource {
    private static final Map<String, String> LABS = Map.of(
        "northside", "https://results.northside-lab.example/api/v1/",
        "harbor", "https://api.harborpath.example/results/");
    private final HttpClient http = HttpClient.newHttpClient();

    @GET
    @Path("/fetch")
    public Response fetch(@QueryParam("lab") String lab, @QueryParam("accession") String accession) throws Exception {
        String base = LABS.get(lab);
        if (base == null || accession == null || !accession.matches("[A-Z0-9]{6,12}")) {
            return Response.status(Response.Status.BAD_REQUEST).build();
        }
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + accession)).GET().build();
        return Response.ok(http.send(req, HttpResponse.BodyHandlers.ofString()).body()).build();
    }

    @GET
    @Path("/preview")
    @Produces(MediaType.TEXT_PLAIN)
    public String preview(@QueryParam("source") String source) throws IOException {
        try (InputStream in = new URL(source).openStream()) {
            return new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8);
        }
    }

    @POST
    @Path("/import")
    @Consumes(MediaType.APPLICATION_XML)
    public List<String> importResults(InputStream body) throws Exception {
        SAXParserFactory factory = SAXParserFactory.newInstance();
        SAXParser parser = factory.newSAXParser();
        List<String> codes = new ArrayList<>();
        parser.parse(body, new DefaultHandler() {
            @Override
            public void startElement(String uri, String local, String qName, Attributes attrs) {
                if ("result".equals(qName)) {
                    codes.add(attrs.getValue("code"));
                }
            }
        });
        return codes;
    }

    @POST
    @Path("/import/v2")
    @Consumes(MediaType.APPLICATION_XML)
    public List<String> importV2(InputStream body) throws Exception {
        SAXParserFactory factory = SAXParserFactory.newInstance();
        factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        SAXParser parser = factory.newSAXParser();
        List<String> codes = new ArrayList<>();
        parser.parse(body, new DefaultHandler() {
            @Override
            public void startElement(String uri, String local, String qName, Attributes attrs) {
                if ("result".equals(qName)) {
                    codes.add(attrs.getValue("code"));
                }
            }
        });
        return codes;
    }

    @POST
    @Path("/panel")
    @Consumes(MediaType.APPLICATION_XML)
    public Response restorePanel(byte[] body) {
        try (XMLDecoder decoder = new XMLDecoder(new ByteArrayInputStream(body))) {
            Object panel = decoder.readObject();
            return Response.ok(Map.of("type", panel.getClass().getSimpleName())).build();
        }
    }
}
