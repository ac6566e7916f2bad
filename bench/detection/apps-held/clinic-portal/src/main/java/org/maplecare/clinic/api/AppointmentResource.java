package org.maplecare.clinic.api;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import org.maplecare.clinic.data.Appointment;
import org.maplecare.clinic.data.AppointmentDao;
import org.maplecare.clinic.util.Credentials;

@Path("/appointments")
@Produces(MediaType.APPLICATION_JSON)
public class AppointmentResource {
    private static final Logger LOG = Logger.getLogger(AppointmentResource.class.getName());
    private static final Map<String, String> SORTS = Map.of("date", "starts_at", "clinician", "clinician", "status", "status");
    private final AppointmentDao dao = new AppointmentDao();

    @GET
    @Path("/patient/{id}")
    public List<Appointment> forPatient(@PathParam("id") long patientId) throws SQLException {
        return dao.forPatient(patientId);
    }

    @GET
    @Path("/clinician/{name}")
    public List<Appointment> forClinician(@PathParam("name") String name, @QueryParam("day") String day) throws SQLException {
        LOG.info("schedule requested for clinician " + name + " on " + day);
        return dao.byClinician(name, day);
    }

    @GET
    @Path("/status/{status}")
    public List<Appointment> byStatus(@PathParam("status") String status) throws SQLException {
        return dao.byStatus(status);
    }

    @GET
    @Path("/search")
    public List<Appointment> search(@QueryParam("q") String q, @DefaultValue("date") @QueryParam("sort") String sort) throws SQLException {
        return dao.search(q == null ? "" : q, SORTS.getOrDefault(sort, "starts_at"));
    }

    @GET
    @Path("/search/raw")
    public List<Appointment> searchRaw(@QueryParam("q") String q, @QueryParam("orderBy") String orderBy) throws SQLException {
        return dao.search(q == null ? "" : q, orderBy == null ? "starts_at" : orderBy);
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response book(Appointment body) throws SQLException {
        if (body.getStartsAt() == null || body.getStartsAt().isBefore(LocalDateTime.now())) {
            return Response.status(Response.Status.BAD_REQUEST).entity(Map.of("error", "appointment must be in the future")).build();
        }
        long id = dao.book(body);
        LOG.info("booked appointment " + id);
        return Response.status(Response.Status.CREATED).entity(Map.of("id", id, "checkInCode", Credentials.visitCode())).build();
    }

    @DELETE
    @Path("/{id}")
    public Response cancel(@PathParam("id") long id) throws SQLException {
        dao.cancel(id);
        return Response.noContent().build();
    }
}
